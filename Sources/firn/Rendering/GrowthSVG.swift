import FirnTools

/// The growth chart as a standalone SVG: file size, live, free and
/// held-by-pins bytes per version as lines, with axes and a legend.
enum GrowthSVG {
    static func render(_ report: Growth.Report, width: Int = 800, height: Int = 360) -> String {
        let points = report.points
        let left = 80.0, right = 20.0, top = 40.0, bottom = 50.0
        let plotW = Double(width) - left - right
        let plotH = Double(height) - top - bottom
        // Labels use the integers themselves: a Double of a value near 2^64 cannot convert back.
        let largest = max(1, points.map(\.fileBytes).max() ?? 1)
        let maxBytes = Double(largest)
        let firstV = Double(points.first?.version ?? 0)
        let lastV = Double(points.last?.version ?? 1)
        let spanV = max(1, lastV - firstV)
        func x(_ v: UInt64) -> Double { left + (Double(v) - firstV) / spanV * plotW }
        func y(_ b: UInt64) -> Double { top + plotH - Double(b) / maxBytes * plotH }
        func line(_ value: (Growth.Point) -> UInt64, _ color: String) -> String {
            let coords = points.map { "\(fmt(x($0.version))),\(fmt(y(value($0))))" }.joined(separator: " ")
            return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(coords)\"/>"
        }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(fmt(left))" y="20" font-size="14">\(escape(report.path)): \(escape(GrowthText.explanation(report)))</text>
        <line x1="\(fmt(left))" y1="\(fmt(top + plotH))" x2="\(fmt(left + plotW))" y2="\(fmt(top + plotH))" stroke="black"/>
        <line x1="\(fmt(left))" y1="\(fmt(top))" x2="\(fmt(left))" y2="\(fmt(top + plotH))" stroke="black"/>
        <text x="\(fmt(left - 6))" y="\(fmt(top + 4))" text-anchor="end">\(Human.bytes(largest))</text>
        <text x="\(fmt(left - 6))" y="\(fmt(top + plotH))" text-anchor="end">0</text>
        <text x="\(fmt(left))" y="\(fmt(top + plotH + 18))">v\(points.first?.version ?? 0)</text>
        <text x="\(fmt(left + plotW))" y="\(fmt(top + plotH + 18))" text-anchor="end">v\(points.last?.version ?? 1)</text>

        """
        if !points.isEmpty {
            svg += line(\.fileBytes, "#1f77b4") + "\n"
            svg += line(\.liveBytes, "#2ca02c") + "\n"
            svg += line(\.freeBytes, "#7f7f7f") + "\n"
            svg += line(\.heldByPinsBytes, "#d62728") + "\n"
        }
        let legend = [("file", "#1f77b4"), ("live", "#2ca02c"), ("free", "#7f7f7f"), ("held by pins", "#d62728")]
        for (i, (name, color)) in legend.enumerated() {
            let lx = left + Double(i) * 120
            let ly = Double(height) - 15
            svg += "<rect x=\"\(fmt(lx))\" y=\"\(fmt(ly - 10))\" width=\"12\" height=\"12\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(fmt(lx + 16))\" y=\"\(fmt(ly))\">\(name)</text>\n"
        }
        return svg + "</svg>\n"
    }

    private static func fmt(_ v: Double) -> String { Human.oneDecimal(v) }

    private static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
