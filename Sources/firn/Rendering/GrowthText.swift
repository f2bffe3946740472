import FirnTools

/// `firn growth`'s text: the chart, the sentence explaining the growth (also
/// the JSON's `explanation` and the SVG's title), and the pins holding space.
enum GrowthText {
    static func lines(_ report: Growth.Report, file: String, width: Int) -> [String] {
        var lines = GrowthChart.lines(report.points, width: width)
        lines.append("\(file): \(explanation(report)).")
        if !report.pins.isEmpty {
            lines.append("held by pins (bytes each would free alone):")
            for p in report.pins {
                let frozen = p.frozenObjects > 0 ? ", \(Human.grouped(p.frozenObjects)) frozen objects" : ""
                let label = p.label.isEmpty ? "" : ", label \"\(p.label)\""
                let after = p.retainedAfterCheckpointBytes != p.retainedBytes
                    ? " (\(Human.bytes(p.retainedAfterCheckpointBytes)) once the next checkpoint runs)" : ""
                lines.append("  \(Human.bytes(p.retainedBytes).leftPadding(9))  pid \(p.pid) \(p.kind) on v\(p.version) (\(p.lag) behind, \(Human.duration(seconds: p.sinceSeconds)))\(frozen)\(label)\(after)")
            }
        }
        return lines
    }

    /// The line after the text when `--svg` wrote the chart.
    static func chartWritten(to path: String) -> String { "chart written to \(path)" }

    /// How much the file grew since when, who holds space now, and on the
    /// commit log what the points stand for and what the next checkpoint
    /// replaces.
    static func explanation(_ report: Growth.Report) -> String {
        let points = report.points
        var explanation: String
        if points.isEmpty {
            explanation = "no commit history recorded yet"
        } else if report.grewBytes == 0, let first = points.first, let last = points.last {
            explanation = "the file has not grown over the \(points.count) recorded commits (v\(first.version)…v\(last.version))"
        } else {
            explanation = "grew \(Human.bytes(report.grewBytes)) since v\(report.grewSinceVersion ?? 0)"
        }
        if let top = report.topPin, top.retainedBytes > 0 {
            var detail = top.kind.description
            if top.frozenObjects > 0 { detail += ", \(Human.grouped(top.frozenObjects)) frozen objects" }
            if !top.label.isEmpty { detail += ", \"\(top.label)\"" }
            explanation += "; \(Human.bytes(top.retainedBytes)) held by pin pid \(top.pid) (\(detail)) on v\(top.version)"
                + " for \(Human.duration(seconds: top.sinceSeconds))"
        } else if report.pinnedBytes == 0 {
            explanation += "; no pin holds space now"
        }
        let logged = points.reduce(UInt64(0)) { $0 + $1.commitsSincePrevious }
        if logged > 0 {
            explanation += "; \(points.count) points, one per checkpoint or page commit, with the \(Human.grouped(logged)) "
                + "commits in the log between them counted in the checkpoint that applied them"
        }
        if let checkpoint = report.checkpointVersion, let next = report.nextCheckpoint {
            explanation += "; v\(checkpoint + 1)…v\(report.currentVersion) are \(Human.grouped(next.frames)) commit(s) in the log "
                + "since checkpoint v\(checkpoint): the next checkpoint replaces at least \(Human.bytes(next.replacedBytes)), "
                + "of which pins will hold \(Human.bytes(next.heldByPinsBytes))"
        }
        return explanation
    }

    /// The JSON's keys the CLI words: the report's own, and `explanation`.
    static func json(_ report: Growth.Report) -> some Encodable {
        struct Explained: Encodable { var explanation: String }
        return JSONDocument(report: report, rendered: Explained(explanation: explanation(report)))
    }
}
