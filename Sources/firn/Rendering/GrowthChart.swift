import FirnTools

/// A small text chart of the growth history for a terminal: file size as
/// `█`, live data as `▒` below it, one column per range of versions. The
/// axis is versions, not points: on the commit log a point is a checkpoint
/// and the commits in the log between two take the columns of their
/// versions, showing the size the last checkpoint left (the file grows
/// only at one).
enum GrowthChart {
    static func lines(_ points: [Growth.Point], width: Int = 60, height: Int = 10) -> [String] {
        guard let firstPoint = points.first, let lastPoint = points.last, width > 0, height > 0 else {
            return ["(no history)"]
        }
        let span = lastPoint.version >= firstPoint.version ? lastPoint.version - firstPoint.version : 0
        let columns = max(1, min(width, Int(min(span + 1, UInt64(Int.max)))))
        // Each column shows the last point at or before the last version it covers.
        var next = 0
        let buckets: [Growth.Point] = (0..<columns).map { c in
            // span × (c + 1) / columns without overflow: versions are file data.
            let n = UInt64(columns), k = UInt64(c + 1)
            let upTo = firstPoint.version + span / n * k + span % n * k / n
            while next + 1 < points.count, points[next + 1].version <= upTo { next += 1 }
            return points[next]
        }
        let top = max(1, buckets.map(\.fileBytes).max() ?? 1)
        var lines: [String] = []
        for row in stride(from: height, through: 1, by: -1) {
            let threshold = Double(top) * (Double(row) - 0.5) / Double(height)
            var line = ""
            for p in buckets {
                if Double(p.liveBytes) >= threshold { line += "▒" }
                else if Double(p.fileBytes) >= threshold { line += "█" }
                else { line += " " }
            }
            let label = row == height ? Human.bytes(top) : (row == 1 ? "0" : "")
            lines.append(pad(label, 9) + " │" + line)
        }
        let first = firstPoint.version
        let last = lastPoint.version
        lines.append(String(repeating: " ", count: 10) + "└" + String(repeating: "─", count: columns))
        let left = "v\(first)"
        let right = "v\(last)"
        let gap = max(1, columns - left.count - right.count)
        lines.append(String(repeating: " ", count: 11) + left + String(repeating: " ", count: gap) + right)
        lines.append(String(repeating: " ", count: 11) + "█ file size  ▒ live data")
        return lines
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
