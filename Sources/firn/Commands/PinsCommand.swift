import ArgumentParser
import FirnTools

struct PinsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Show the reader table: who pins which version, lag, age, frozen objects, bytes retained.",
        discussion: """
            Exits 1 when a threshold (--max-lag, --max-age, --max-retained) is crossed by a live pin, for cron alerts. \
            JSON keys: latestVersion, lockFile, pins[] (slot, version, pid, threadID, kind, label, lag, since, sinceSeconds, \
            frozenObjects, retainedBytes, stale), sharedBytes, clearedStale[], violations[], pinned, note.
            """,
        aliases: ["readers"])

    @Argument(help: "The database file.") var file: String
    @Flag(help: "Free the reader slots of processes that have exited.") var clearStale = false
    @Option(help: ArgumentHelp("Exit 1 when a pin is more than N commits behind.", valueName: "n")) var maxLag: UInt64?
    @Option(help: ArgumentHelp("Exit 1 when a pin is older than this (90s, 15m, 2h, 1d).", valueName: "duration")) var maxAge: String?
    @Option(help: ArgumentHelp("Exit 1 when a pin alone retains more than this (512MiB, 2G).", valueName: "size")) var maxRetained: String?
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let maxAge, Units.parseDuration(maxAge) == nil { throw ValidationError("--max-age: \"\(maxAge)\" is not a duration (e.g. 90s, 15m, 2h, 1d)") }
        if let maxRetained, Units.parseSize(maxRetained) == nil { throw ValidationError("--max-retained: \"\(maxRetained)\" is not a size (e.g. 512MiB, 2G)") }
    }

    func run() throws {
        var options = Pins.Options(path: file)
        options.clearStale = clearStale
        options.maxLag = maxLag
        options.maxAgeSeconds = maxAge.flatMap(Units.parseDuration)
        options.maxRetainedBytes = maxRetained.flatMap(Units.parseSize)
        let report = try Pins.run(options)
        common.note(report.note)
        if common.json {
            try Console.json(report)
        } else {
            for cleared in report.clearedStale {
                try Console.line("cleared stale pin: slot \(cleared.slot), pid \(cleared.pid) (exited), version \(cleared.version)")
            }
            if !report.lockFile {
                try Console.line("no lock file: no process has \(file) open")
            } else if report.pins.isEmpty {
                try Console.line("no pins (latest version \(report.latestVersion))")
            } else {
                try Console.line("latest version \(report.latestVersion)")
                try Console.line("SLOT VERSION  LAG    PID      KIND      AGE      FROZEN   RETAINED   LABEL")
                for p in report.pins {
                    let stale = p.stale ? " (stale: process exited)" : ""
                    try Console.line("\(String(p.slot).padding(4)) \(String(p.version).padding(8)) \(String(p.lag).padding(6)) \(String(p.pid).padding(8)) \(p.kind.padding(9)) \(Units.duration(seconds: p.sinceSeconds).padding(8)) \(Units.grouped(p.frozenObjects).padding(8)) \(Units.bytes(p.retainedBytes).padding(10)) \(p.label)\(stale)")
                }
                if report.sharedBytes > 0 {
                    try Console.line("\(Units.bytes(report.sharedBytes)) more are held jointly by several pinned versions")
                }
            }
            for violation in report.violations { try Console.line("ALERT: \(violation)") }
        }
        if let first = report.violations.first {
            let more = report.violations.count > 1 ? " (and \(report.violations.count - 1) more)" : ""
            throw ToolError.thresholdCrossed(path: file, detail: first + more)
        }
    }
}
