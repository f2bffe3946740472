import ArgumentParser
import FirnCore
import FirnTools

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Prove a version intact: slots, checksums and births from the slot down, tree invariants, space accounting.",
        discussion: """
            Exit 0 clean, 65 corrupt (each finding names page, tree, version, expected and found). Pins the version \
            it checks, so it runs against a live database without blocking writers. A version between checkpoints \
            (a commit log frame) is checked as its checkpoint's pages plus the log: every frame the scan of the \
            region accepts must apply over the versions before it, and each tree's count at the version must match \
            its entries; a frame that cannot be applied is a finding naming its first page and version (kind log), \
            and then no reader can read the version: verify checks the checkpoint instead and says so \
            (unreadableVersion). A torn, stale or damaged end after the frames is what a crash during a write \
            leaves: a note, not a finding. JSON keys: clean, unreadableVersion, verify (path, \
            version, pageSize, quick, slots[], trees[] (name, kind: user, catalog or space, entries, depth, branchPages, leafPages, overflowPages), reachablePages, freePages, retiredPages, logicalPages, \
            bytesChecked, findings[] (kind, page, tree, version, expected, found, message), truncated, log (epoch, firstPage, pages, commitFrames, sealFrames, newestVersion, durableVersion, end, endOffset, endPage, appliedVersion, notes[])), lockFile, seconds, pinned, note.
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
            // The version readers take: the one checked, or one whose log
            // frame cannot be applied (its checkpoint was checked).
            let current = report.unreadableVersion ?? v.version
            for slot in v.slots {
                let state = !slot.valid ? "invalid (\(slot.problem ?? "?"))"
                    : "v\(slot.version ?? 0)" + (!slot.current ? "" : current == slot.version ? " (current)"
                        : " (current: the checkpoint; version \(current) is a frame of its log)") + (slot.unsealed ? " (unsealed: not durable yet)" : "")
                        + (slot.problem.map { " (note: \($0))" } ?? "")
                try Console.line("slot \(slot.slot): \(state)")
            }
            // A version between checkpoints has no pages of its own: the
            // trees walked are its checkpoint's (the log line covers the frames).
            let walked = v.log.map { $0.epoch != v.version ? " at checkpoint v\($0.epoch)" : "" } ?? ""
            for tree in v.trees {
                try Console.line("tree \(tree.kind.label(tree.name))\(walked): \(Units.grouped(tree.entries)) entries, depth \(tree.depth), \(tree.branchPages) branch + \(tree.leafPages) leaf + \(tree.overflowPages) overflow pages")
            }
            if let log = v.log {
                let place = "region byte \(log.endOffset)" + (log.endPage.map { ", page \($0)" } ?? "")
                try Console.line("log: epoch \(log.epoch), pages \(log.firstPage)…\(log.firstPage + log.pages - 1), \(log.commitFrames) commit + \(log.sealFrames) seal frame(s), newest \(log.newestVersion), durable \(log.durableVersion), ends \(log.end.rawValue) at \(place); frames applied up to version \(log.appliedVersion)")
                for note in log.notes { try Console.line("log note: \(note)") }
            }
            try Console.line("pages: \(v.logicalPages) total = \(v.reachablePages) reachable + \(v.freePages) free + \(v.retiredPages) retired")
            if let note = report.lockFile.note { try Console.line("lock file: \(note)") }
            for finding in v.findings { try Console.line("FINDING: \(finding)") }
            if v.truncated { try Console.line("(stopped after \(v.findings.count) findings; --max-errors)") }
            let mbps = report.seconds > 0 ? Double(v.bytesChecked) / 1_048_576 / report.seconds : 0
            if let unreadable = report.unreadableVersion {
                try Console.line("\(file): version \(unreadable) cannot be read (a commit log frame cannot be applied); checked its checkpoint, version \(v.version): \(v.findings.count) finding(s)")
            } else {
                try Console.line(report.clean
                    ? "\(file): version \(v.version) is clean (\(Units.bytes(v.bytesChecked)) checked in \(Units.oneDecimal(report.seconds * 1000)) ms, \(mbps < 1e15 ? Int(mbps) : 0) MiB/s)"
                    : "\(file): version \(v.version): \(v.findings.count) finding(s)")
            }
        }
        if let first = report.verify.findings.first {
            throw ToolError.verificationFailed(path: file, findings: report.verify.findings.count, first: first.description)
        }
        if let unreadable = report.unreadableVersion {
            // The log finding went (the file changed since): still corrupt.
            throw ToolError.verificationFailed(path: file, findings: 1, first: "version \(unreadable) cannot be read")
        }
    }
}
