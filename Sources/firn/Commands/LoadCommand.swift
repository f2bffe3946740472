import ArgumentParser
import FirnTools

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load entries in the `firn dump --entries` format into a database (created when missing).",
        discussion: """
            Reads stdin (or --input) in batches, one write transaction per batch, into the trees the lines name \
            (or all into --tree). Interrupted, it stops after the last whole batch (each batch is atomic). \
            JSON keys: path, entries, batches, trees, created, version.
            """)

    @Argument(help: "The database file.") var file: String
    @Option(help: "Read from this file instead of stdin.") var input: String?
    @Option(help: "Put every entry into this tree.") var tree: String?
    @Option(parsing: .unconditional, help: "Entries per write transaction (1…10000000; default: 10000).", transform: NumericOption.batch)
    var batch = 10_000
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Load.Options(path: file)
        options.input = input
        options.tree = tree
        options.batchSize = batch
        options.lockTimeout = common.writerLockTimeout
        let report = try common.withProgress { progress in try Load.run(options, progress: progress) }
        try common.format.show(json: { report }, text: { LoadText.lines(report, file: file) })
    }
}
