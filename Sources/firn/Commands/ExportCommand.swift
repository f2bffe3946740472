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
        let progress = common.progressLine()
        let report = try Export.run(options, progress: progress.handler)
        progress.finish()
        common.note(report.note)
        let line = "\(file): exported version \(report.version) (\(report.trees) trees, \(Units.grouped(report.entries)) entries): \(Units.bytes(report.imageBytes)) image → \(Units.bytes(report.compressedBytes)) LZ4 in \(Units.oneDecimal(report.seconds)) s"
        if output == "-" {
            // stdout carries the snapshot: the report goes to stderr.
            Console.error(line)
            return
        }
        if common.json { return try Console.json(report) }
        try Console.line(line + " → \(output)")
    }
}
