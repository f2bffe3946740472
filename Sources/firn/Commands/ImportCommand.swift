import ArgumentParser
import FirnTools

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Decompress and verify a snapshot, then atomically create the database file.",
        discussion: "Refuses to overwrite unless --force; with it, the original stays until the new file verified. JSON keys: input, output, version, compressedBytes, bytes, replaced, trees[] (name, kind: user, catalog or space, entries, …), seconds.")

    @Argument(help: "The snapshot (an LZ4 frame), or - for stdin.") var snapshot: String
    @Option(name: .shortAndLong, help: "The database file to create.") var output: String
    @Flag(help: "Replace an existing database (nobody may have it open).") var force = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Import.Options(input: snapshot, output: output)
        options.force = force
        let report = try common.withProgress { progress in try Import.run(options, progress: progress) }
        try Self.show(report, snapshot: snapshot, output: output, common.format)
    }

    static func show(_ report: Import.Report, snapshot: String, output: String, _ format: ReportFormat) throws {
        try format.show(json: { report }, text: { ImportText.lines(report, snapshot: snapshot, output: output) })
    }
}
