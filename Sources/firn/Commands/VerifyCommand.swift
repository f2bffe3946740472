import ArgumentParser
import FirnTools

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Prove a version intact: slots, checksums and births from the slot down, tree invariants, space accounting.",
        discussion: """
            Exit 0 clean, 65 corrupt (each finding names page, tree, version, expected and found). Pins the version \
            it checks, so it runs against a live database without blocking writers. JSON keys: clean, verify (path, \
            version, pageSize, quick, slots[], trees[] (name, kind: user, catalog or space, entries, depth, branchPages, leafPages, overflowPages), reachablePages, freePages, retiredPages, logicalPages, \
            bytesChecked, findings[] (kind, page, tree, version, expected, found, message), truncated), lockFile, seconds, pinned, note.
            """)

    @Argument(help: "The database file.") var file: String
    @Option(parsing: .unconditional, help: "A readable version (default: the current one).",
            transform: NumericOption.version) var version: UInt64?
    @Flag(help: "Skip page checksums (structure and references only).") var quick = false
    @Option(parsing: .unconditional, help: "Stop after this many findings (1…1000000; default: 100).", transform: NumericOption.findings)
    var maxErrors = 100
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Verify.Options(path: file)
        options.version = version
        options.quick = quick
        options.maxErrors = maxErrors
        let report = try Verify.run(options)
        common.note(report.note)
        if common.json {
            try Console.json(report)
        } else {
            let v = report.verify
            for slot in v.slots {
                let state = !slot.valid ? "invalid (\(slot.problem ?? "?"))"
                    : "v\(slot.version ?? 0)" + (slot.current ? " (current)" : "") + (slot.unsealed ? " (unsealed: not durable yet)" : "")
                        + (slot.problem.map { " (note: \($0))" } ?? "")
                try Console.line("slot \(slot.slot): \(state)")
            }
            for tree in v.trees {
                try Console.line("tree \(tree.kind.label(tree.name)): \(Units.grouped(tree.entries)) entries, depth \(tree.depth), \(tree.branchPages) branch + \(tree.leafPages) leaf + \(tree.overflowPages) overflow pages")
            }
            try Console.line("pages: \(v.logicalPages) total = \(v.reachablePages) reachable + \(v.freePages) free + \(v.retiredPages) retired")
            if let note = report.lockFile.note { try Console.line("lock file: \(note)") }
            for finding in v.findings { try Console.line("FINDING: \(finding)") }
            if v.truncated { try Console.line("(stopped after \(v.findings.count) findings; --max-errors)") }
            let mbps = report.seconds > 0 ? Double(v.bytesChecked) / 1_048_576 / report.seconds : 0
            try Console.line(report.clean
                ? "\(file): version \(v.version) is clean (\(Units.bytes(v.bytesChecked)) checked in \(Units.oneDecimal(report.seconds * 1000)) ms, \(mbps < 1e15 ? Int(mbps) : 0) MiB/s)"
                : "\(file): version \(v.version): \(v.findings.count) finding(s)")
        }
        if let first = report.verify.findings.first {
            throw ToolError.verificationFailed(path: file, findings: report.verify.findings.count, first: first.description)
        }
    }
}
