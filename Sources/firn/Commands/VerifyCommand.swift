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
            bytesChecked, findings[] (kind, page, tree, version, expected, found, message), truncated, log (\(InfoCommand.logKeys), notes[]; the summary firn info's log reports too)), lockFile, seconds, pinned, note.
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
        let report = try common.withProgress { progress in try Verify.run(options, progress: progress) }
        try Self.show(report, file: file, common.format)
        try Self.check(report, file: file)
    }

    static func show(_ report: Verify.Report, file: String, _ format: ReportFormat) throws {
        try format.show(note: report.note, json: { report }, text: { VerifyText.lines(report, file: file) })
    }

    /// Throws the failure a report with findings is (exit 65).
    static func check(_ report: Verify.Report, file: String) throws {
        if let first = report.verify.findings.first {
            throw ToolError.verificationFailed(path: file, findings: report.verify.findings.count, first: first.description)
        }
        if let unreadable = report.unreadableVersion {
            // The log finding went (the file changed since): still corrupt.
            throw ToolError.verificationFailed(path: file, findings: 1, first: "version \(unreadable) cannot be read")
        }
    }
}
