import ArgumentParser
import FirnTools

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load entries in the `firn dump --entries` format into a database (created when missing).",
        discussion: """
            Reads stdin (or --input) in batches, one write transaction per batch, into the trees the lines name \
            (or all into --tree, where a line may also be two tab-separated fields: key, value). Interrupted \
            (SIGINT, SIGTERM), it keeps the batches it committed (each batch is atomic), says on stderr how many \
            batches and entries that is, and exits 130. The text and JSON report the entries written and, per \
            tree, the keys it holds after the load and how many entries overwrote a key present (in the file or \
            earlier in the input). JSON keys: path, entries, overwritten, batches, trees (per name: written, \
            overwritten, keys), created, version.
            """)

    @Argument(help: "The database file.") var file: String
    @Option(help: "Read from this file instead of stdin.") var input: String?
    @Option(help: "Put every entry into this tree (lines may then be key, value).") var tree: String?
    @Option(parsing: .unconditional, help: "Entries per write transaction (1…10000000; default: 10000).", transform: NumericOption.batch)
    var batch = 10_000
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Load.Options(path: file)
        options.input = input
        options.tree = tree
        options.batchSize = batch
        options.lockTimeout = common.writerLockTimeout
        // Ctrl-C ends the load at once (reading, waiting for the lock);
        // the batches committed stay, and the handler's line counts them.
        let interrupted = { (batches: Int, entries: UInt64, version: UInt64) in
            Interruption.setMessage("firn: " + ToolError.loadInterrupted(path: file, batches: batches, entries: entries,
                                                                        version: version).message + "\n")
        }
        interrupted(0, 0, 0)
        let report = try common.withProgress { progress in
            try Load.run(options, progress: progress, committed: interrupted)
        }
        try common.format.show(json: { report }, text: { LoadText.lines(report, file: file) })
    }
}
