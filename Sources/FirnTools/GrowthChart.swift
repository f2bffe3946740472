/// A small text chart of the growth history for a terminal: file size as
/// `█`, live data as `▒` below it, one column per bucket of commits.
public enum GrowthChart {
    public static func render(_ points: [Growth.Point], width: Int = 60, height: Int = 10) -> String {
        guard !points.isEmpty, width > 0, height > 0 else { return "(no history)\n" }
        let columns = min(width, points.count)
        // The last point of each bucket represents it.
        let buckets: [Growth.Point] = (0..<columns).map { c in
            points[min(points.count - 1, ((c + 1) * points.count) / columns - 1)]
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
            let label = row == height ? Units.bytes(top) : (row == 1 ? "0" : "")
            lines.append(pad(label, 9) + " │" + line)
        }
        let first = buckets.first?.version ?? 0
        let last = buckets.last?.version ?? 0
        lines.append(String(repeating: " ", count: 10) + "└" + String(repeating: "─", count: columns))
        let left = "v\(first)"
        let right = "v\(last)"
        let gap = max(1, columns - left.count - right.count)
        lines.append(String(repeating: " ", count: 11) + left + String(repeating: " ", count: gap) + right)
        lines.append(String(repeating: " ", count: 11) + "█ file size  ▒ live data")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
