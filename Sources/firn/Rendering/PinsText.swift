import FirnTools

/// `firn pins`' text: the reader table, what the next checkpoint replaces,
/// and an ALERT line per threshold crossed (also the JSON's `violations`).
enum PinsText {
    static func lines(_ report: Pins.Report, violations: [Pins.Violation], file: String) -> [String] {
        var lines: [String] = []
        for cleared in report.clearedStale {
            lines.append("cleared stale pin: slot \(cleared.slot), pid \(cleared.pid) (exited), version \(cleared.version)")
        }
        if !report.lockFile {
            lines.append("no lock file: no process has \(file) open")
        } else if report.pins.isEmpty {
            lines.append("no pins (latest version \(report.latestVersion))")
        } else {
            lines.append("latest version \(report.latestVersion)")
            let log = report.nextCheckpoint != nil
            lines.append("SLOT VERSION  LAG    PID      THREAD   KIND      AGE      FROZEN   RETAINED   " + (log ? "AT CHECKPOINT  " : "") + "LABEL")
            for p in report.pins {
                let stale = p.stale ? " (stale: process exited)" : ""
                let after = log ? Human.bytes(p.retainedAfterCheckpointBytes).padding(14) + " " : ""
                lines.append("\(String(p.slot).padding(4)) \(String(p.version).padding(8)) \(String(p.lag).padding(6)) \(String(p.pid).padding(8)) \(String(p.threadID).padding(8)) \(p.kind.description.padding(9)) \(Human.duration(seconds: p.sinceSeconds).padding(8)) \(Human.grouped(p.frozenObjects).padding(8)) \(Human.bytes(p.retainedBytes).padding(10)) \(after)\(p.label)\(stale)")
            }
            if report.sharedBytes > 0 {
                lines.append("\(Human.bytes(report.sharedBytes)) more are held jointly by several pinned versions")
            }
        }
        if let next = report.nextCheckpoint, report.lockFile {
            lines.append("v\(next.checkpoint + 1)…v\(report.latestVersion) are \(Human.grouped(next.frames)) commit(s) in the log since checkpoint v\(next.checkpoint); "
                         + "the next checkpoint replaces at least \(Human.bytes(next.replacedBytes)) of the pages they stand on "
                         + "(\(Human.bytes(next.regionBytes)) of it the log region), of which pins will hold \(Human.bytes(next.heldByPinsBytes))"
                         + (next.sharedBytes > 0 ? " (\(Human.bytes(next.sharedBytes)) shared)" : "") + ": AT CHECKPOINT")
        }
        for violation in violations { lines.append("ALERT: \(text(violation))") }
        return lines
    }

    /// "pin of pid 7 (frozen, "dashboard") on version 12 is 240 commits behind (--max-lag 100)".
    static func text(_ violation: Pins.Violation) -> String {
        let p = violation.pin
        let who = "\(p.stale ? "stale " : "")pin of pid \(p.pid)\(p.stale ? " (exited)" : "") (\(p.kind)\(p.label.isEmpty ? "" : ", \"\(p.label)\"")) on version \(p.version)"
        switch violation.threshold {
        case let .lag(max): return "\(who) is \(p.lag) commits behind (--max-lag \(max))"
        case let .ageSeconds(max):
            return "\(who) is \(Human.duration(seconds: p.sinceSeconds)) old (--max-age \(Human.duration(seconds: max)))"
        case let .retainedBytes(max): return "\(who) retains \(Human.bytes(p.retainedBytes)) (--max-retained \(Human.bytes(max)))"
        }
    }

    static func json(_ report: Pins.Report, violations: [Pins.Violation]) -> some Encodable {
        struct Violations: Encodable { var violations: [String] }
        return JSONDocument(report: report, rendered: Violations(violations: violations.map(text)))
    }
}
