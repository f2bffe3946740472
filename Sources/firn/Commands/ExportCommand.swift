import ArgumentParser
import FirnTools

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a hot, consistent snapshot of a version as one standard LZ4 frame (`lz4 -d` gives a Firn file).",
        discussion: "The version is pinned (kind export) while it runs. JSON keys: path, output, version, imageBytes, compressedBytes, trees, entries, seconds, pinned, note.")

    @Argument(help: "The database file.") var file: String
    @Option(name: .shortAndLong, help: "The snapshot file, or - for stdout.") var output: String
    @Option(parsing: .unconditional, help: "A readable version (default: the current one).",
            transform: NumericOption.version) var version: UInt64?
    @Option(parsing: .unconditional, help: "LZ4 level: 0 fast (default) … 12 smallest.",
            transform: NumericOption.level) var level: Int32 = 0
    @Flag(help: "Replace an existing output file.") var force = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Export.Options(path: file, output: output)
        options.version = version
        options.level = level
        options.force = force
        let report = try common.withProgress { progress in try Export.run(options, progress: progress) }
        if output == "-" {
            // stdout carries the snapshot: the report goes to stderr.
            common.note(report.note)
            Console.error(ExportText.line(report, file: file, output: nil))
            return
        }
        try Self.show(report, file: file, output: output, common.format)
    }

    static func show(_ report: Export.Report, file: String, output: String, _ format: ReportFormat) throws {
        try format.show(note: report.note, json: { report }, text: { [ExportText.line(report, file: file, output: output)] })
    }
}
