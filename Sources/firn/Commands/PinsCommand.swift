import ArgumentParser
import FirnTools

struct PinsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Show the reader table: who pins which version, lag, age, frozen objects, bytes retained.",
        discussion: """
            Exits 1 when a threshold (--max-lag, --max-age, --max-retained) is crossed by a live pin, for cron alerts; \
            a stale pin (its process exited: shown as stale, reclaimed by the next writer) counts only with \
            --include-stale. \
            JSON keys: latestVersion, lockFile, pins[] (slot, version, pid, threadID, kind, label, lag, since, sinceSeconds, \
            frozenObjects, retainedBytes, retainedAfterCheckpointBytes, stale), sharedBytes, clearedStale[], violations[], \
            checkpointVersion, nextCheckpoint (checkpoint, frames, replacedBytes, regionBytes, heldByPinsBytes, sharedBytes), \
            pinned, note. On the commit log a pin on a frame holds no page until the next checkpoint replaces the pages \
            its checkpoint stands on: AT CHECKPOINT (retainedAfterCheckpointBytes) is what each pin will retain alone then.
            """,
        aliases: ["readers"])

    @Argument(help: "The database file.") var file: String
    @Flag(help: "Free the reader slots of processes that have exited.") var clearStale = false
    @Option(parsing: .unconditional, help: ArgumentHelp("Exit 1 when a pin is more than N commits behind.", valueName: "n"),
            transform: NumericOption.commits) var maxLag: UInt64?
    @Option(parsing: .unconditional, help: ArgumentHelp("Exit 1 when a pin is older than this (90s, 15m, 2h, 1d; at most 3650d).", valueName: "duration"),
            transform: NumericOption.age) var maxAge: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Exit 1 when a pin alone retains more than this (512MiB, 2G; at most 1024TiB).", valueName: "size"),
            transform: NumericOption.retained) var maxRetained: UInt64?
    @Flag(help: "Hold the stale pins of exited processes to the thresholds too (default: live pins only).")
    var includeStale = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Pins.Options(path: file)
        options.clearStale = clearStale
        var thresholds = Pins.Thresholds()
        thresholds.maxLag = maxLag
        thresholds.maxAgeSeconds = maxAge
        thresholds.maxRetainedBytes = maxRetained
        thresholds.includeStale = includeStale
        let report = try Pins.run(options)
        let violations = Pins.violations(report, thresholds)
        try Self.show(report, violations: violations, file: file, common.format)
        if let first = violations.first {
            let more = violations.count > 1 ? " (and \(violations.count - 1) more)" : ""
            throw ToolError.thresholdCrossed(path: file, detail: PinsText.text(first) + more)
        }
    }

    static func show(_ report: Pins.Report, violations: [Pins.Violation] = [], file: String, _ format: ReportFormat) throws {
        try format.show(note: report.note, json: { PinsText.json(report, violations: violations) },
                        text: { PinsText.lines(report, violations: violations, file: file) })
    }
}
