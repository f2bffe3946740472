import ArgumentParser
import FirnTools

struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Write the commit log's changes into the trees (a checkpoint), so the pages they replaced can be reused.",
        discussion: """
            Small commits are frames of the file's commit log; the pages their changes replace are freed only \
            by the next checkpoint, which a writer makes when the log is full. Run this before measuring \
            (firn info, pins, growth), compacting or backing up a file. Takes the writer lock (--lock-timeout, \
            default 30 s). The checkpoint is a new version with the same contents. Nothing is written when the \
            latest version is a checkpoint already. JSON keys: path, previousVersion, version, written.
            """)

    @Argument(help: "The database file.") var file: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Checkpoint.Options(path: file)
        options.lockTimeout = common.writerLockTimeout
        try Self.show(try Checkpoint.run(options), file: file, common.format)
    }

    static func show(_ report: Checkpoint.Report, file: String, _ format: ReportFormat) throws {
        try format.show(json: { report }, text: { CheckpointText.lines(report, file: file) })
    }
}
