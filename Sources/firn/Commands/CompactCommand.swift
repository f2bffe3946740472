import ArgumentParser
import FirnTools

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Write a packed copy of a version (-o), or compact the file in place when nobody else has it open.",
        discussion: """
            With -o: online, the version is pinned (kind compact) while others keep working. Without -o: in place, \
            only when no other process has the database open (else exit 75 naming the holders; --lock-timeout keeps \
            asking), through a temporary file in the same directory, fsync, verify, rename, directory fsync; exit 73 \
            when the disk lacks room. JSON keys: path, output, inPlace, dryRun, compacted, reason, version, \
            beforeBytes, afterBytes, reclaimablePercent, seconds.
            """)

    @Argument(help: "The database file.") var file: String
    @Option(name: .shortAndLong, help: "Write the packed copy here instead of compacting in place.") var output: String?
    @Option(parsing: .unconditional, help: "With -o: a readable version to copy (default: the current one).",
            transform: NumericOption.version) var version: UInt64?
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Compact only when more than this percent (0…100) of the file is reclaimable.", valueName: "percent"),
            transform: NumericOption.percent)
    var ifFreeOver: Double?
    @Flag(help: "Tell the gain without writing anything.") var dryRun = false
    @Flag(help: "With -o: replace an existing output file.") var force = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Compact.Options(path: file)
        options.output = output
        options.version = version
        options.ifFreeOverPercent = ifFreeOver
        options.dryRun = dryRun
        options.force = force
        options.lockTimeout = common.lockTimeout
        let report = try common.withProgress { progress in try Compact.run(options, progress: progress) }
        try Self.show(report, file: file, output: report.output, common.format)
    }

    static func show(_ report: Compact.Report, file: String, output: String, _ format: ReportFormat) throws {
        try format.show(json: { CompactText.json(report) }, text: { CompactText.lines(report, file: file, output: output) })
    }
}
