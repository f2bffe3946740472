import ArgumentParser
import FirnTools

struct PinsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Show the reader table: who pins which version, lag, age, frozen objects, bytes retained.",
        discussion: """
            Exits 1 when a threshold (--max-lag, --max-age, --max-retained) is crossed by a live pin, for cron alerts. \
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
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Pins.Options(path: file)
        options.clearStale = clearStale
        options.maxLag = maxLag
        options.maxAgeSeconds = maxAge
        options.maxRetainedBytes = maxRetained
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
                let log = report.nextCheckpoint != nil
                try Console.line("SLOT VERSION  LAG    PID      THREAD   KIND      AGE      FROZEN   RETAINED   " + (log ? "AT CHECKPOINT  " : "") + "LABEL")
                for p in report.pins {
                    let stale = p.stale ? " (stale: process exited)" : ""
                    let after = log ? Units.bytes(p.retainedAfterCheckpointBytes).padding(14) + " " : ""
                    try Console.line("\(String(p.slot).padding(4)) \(String(p.version).padding(8)) \(String(p.lag).padding(6)) \(String(p.pid).padding(8)) \(String(p.threadID).padding(8)) \(p.kind.description.padding(9)) \(Units.duration(seconds: p.sinceSeconds).padding(8)) \(Units.grouped(p.frozenObjects).padding(8)) \(Units.bytes(p.retainedBytes).padding(10)) \(after)\(p.label)\(stale)")
                }
                if report.sharedBytes > 0 {
                    try Console.line("\(Units.bytes(report.sharedBytes)) more are held jointly by several pinned versions")
                }
            }
            if let next = report.nextCheckpoint, report.lockFile {
                try Console.line("v\(next.checkpoint + 1)…v\(report.latestVersion) are \(Units.grouped(next.frames)) commit(s) in the log since checkpoint v\(next.checkpoint); "
                                 + "the next checkpoint replaces at least \(Units.bytes(next.replacedBytes)) of the pages they stand on "
                                 + "(\(Units.bytes(next.regionBytes)) of it the log region), of which pins will hold \(Units.bytes(next.heldByPinsBytes))"
                                 + (next.sharedBytes > 0 ? " (\(Units.bytes(next.sharedBytes)) shared)" : "") + ": AT CHECKPOINT")
            }
            for violation in report.violations { try Console.line("ALERT: \(violation)") }
        }
        if let first = report.violations.first {
            let more = report.violations.count > 1 ? " (and \(report.violations.count - 1) more)" : ""
            throw ToolError.thresholdCrossed(path: file, detail: first + more)
        }
    }
}
