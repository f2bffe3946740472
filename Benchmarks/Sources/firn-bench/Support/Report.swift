#if canImport(Glibc)
import Glibc
#endif

/// A target a figure is judged against.
enum Target {
    /// ratio (Firn better when > 1) at least this.
    case ratioAtLeast(Double)
    /// Firn's own value at most this (pinned growth, ×).
    case firnAtMost(Double)
    /// Firn's own value below this (peak RSS, bytes).
    case firnBelow(Double)
    /// Firn's own value at most this (peak RSS, bytes).
    case firnAtMostBytes(Double)
    /// Firn's own value at most this (a latency, µs).
    case firnAtMostMicroseconds(Double)

    var text: String {
        switch self {
        case let .ratioAtLeast(x): return "≥ \(formatRatio(x))"
        case let .firnAtMost(x): return "Firn ≤ \(formatRatio(x))"
        case let .firnBelow(x): return "Firn < \(formatBytes(x))"
        case let .firnAtMostBytes(x): return "Firn ≤ \(formatBytes(x))"
        case let .firnAtMostMicroseconds(x): return "Firn ≤ \(formatDecimal(x, places: 0)) µs"
        }
    }
}

/// One measured figure: Firn against one peer.
struct Figure {
    var name: String
    var firn: Double
    var peer: String
    var peerValue: Double
    /// > 1 means Firn is better.
    var ratio: Double
    var unit: String
    var target: Target?
    /// How Firn ran when not as the row says (e.g. "2 threads").
    var mode: String = ""
    var note: String = ""

    var met: Bool? {
        guard let target, firn.isFinite else { return nil }
        switch target {
        case let .ratioAtLeast(x): return ratio >= x
        case let .firnAtMost(x): return firn <= x
        case let .firnBelow(x): return firn < x
        case let .firnAtMostBytes(x): return firn <= x
        case let .firnAtMostMicroseconds(x): return firn <= x
        }
    }

    /// The ratio as the table and the log show it: two places, or as many
    /// more as it takes (up to six) for a missed target not to read as met
    /// (1.495× against ≥ 1.50×, not 1.50×).
    var ratioText: String {
        guard case let .ratioAtLeast(x)? = target, ratio < x else { return formatRatio(ratio) }
        var places = 2
        while places < 6 && formatDecimal(ratio, places: places) == formatDecimal(x, places: places) { places += 1 }
        return formatDecimal(ratio, places: places) + "×"
    }

    /// Higher is better for throughput: ratio = firn / peer.
    static func higherIsBetter(_ name: String, firn: Double, peer: String, peerValue: Double, unit: String,
                               target: Target?, mode: String = "") -> Figure {
        Figure(name: name, firn: firn, peer: peer, peerValue: peerValue, ratio: firn / peerValue,
               unit: unit, target: target, mode: mode)
    }

    /// Lower is better for sizes, times and memory: ratio = peer / firn.
    static func lowerIsBetter(_ name: String, firn: Double, peer: String, peerValue: Double, unit: String,
                              target: Target?, mode: String = "") -> Figure {
        Figure(name: name, firn: firn, peer: peer, peerValue: peerValue, ratio: peerValue / firn,
               unit: unit, target: target, mode: mode)
    }

    var jsonLine: String {
        var fields = [
            "\"name\":\(jsonString(name))",
            "\"firn\":\(jsonNumber(firn))",
            "\"peer\":\(jsonString(peer))",
            "\"peerValue\":\(jsonNumber(peerValue))",
            "\"ratio\":\(jsonNumber(ratio))",
            "\"unit\":\(jsonString(unit))",
        ]
        if !mode.isEmpty { fields.append("\"mode\":\(jsonString(mode))") }
        if let met { fields.append("\"met\":\(met)") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// A workload that could not run, and why.
struct Skipped {
    var name: String
    var reason: String
}

final class Report {
    var figures: [Figure] = []
    var skipped: [Skipped] = []
    var header: [String] = []

    func add(_ f: Figure) {
        figures.append(f)
        let verdict = f.met.map { $0 ? "met" : "MISSED" } ?? "-"
        log("→ \(f.name) vs \(f.peer): Firn \(formatValue(f.firn, f.unit)), \(f.peer) \(formatValue(f.peerValue, f.unit)), ratio \(f.ratioText) [\(verdict)]")
    }

    func skip(_ name: String, _ reason: String) {
        skipped.append(Skipped(name: name, reason: reason))
        log("→ \(name): skipped: \(reason)")
    }

    /// The table for people (Markdown, so it can go into the README as is).
    func table() -> String {
        var rows: [[String]] = [["workload", "Firn", "peer", "peer value", "ratio", "target", "met?"]]
        for f in figures {
            let name = f.mode.isEmpty ? f.name : "\(f.name) (\(f.mode))"
            rows.append([
                name, formatValue(f.firn, f.unit), f.peer, formatValue(f.peerValue, f.unit),
                f.ratioText, f.target?.text ?? "", f.met.map { $0 ? "yes" : "**no**" } ?? "",
            ])
        }
        for s in skipped {
            let firstLine = s.reason.split(separator: "\n").first.map(String.init) ?? ""
            rows.append([s.name, "skipped", "", "", "", "", String(firstLine.prefix(160))])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
        func line(_ r: [String]) -> String {
            "| " + r.enumerated().map { i, c in c + String(repeating: " ", count: widths[i] - c.count) }.joined(separator: " | ") + " |"
        }
        var out = [line(rows[0]), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
        for r in rows.dropFirst() { out.append(line(r)) }
        return out.joined(separator: "\n")
    }

    func appendJSON(to path: String) {
        guard let f = fopen(path, "a") else {
            log("firn-bench: cannot open \(path) for appending")
            return
        }
        for figure in figures { fputs(figure.jsonLine + "\n", f) }
        fclose(f)
    }
}

// MARK: formatting

func formatNumber(_ x: Double) -> String {
    guard x.isFinite else { return "n/a" }
    if abs(x) >= 100 { return String(Int(x.rounded())).groupedThousands }
    return formatDecimal(x, places: abs(x) >= 10 ? 1 : 2)
}

func formatDecimal(_ x: Double, places: Int) -> String {
    guard x.isFinite else { return "n/a" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let r = (abs(x) * scale).rounded()
    let whole = Int(r / scale)
    let frac = Int(r) - whole * Int(scale)
    var fs = String(frac)
    while fs.count < places { fs = "0" + fs }
    return (x < 0 ? "-" : "") + String(whole) + (places > 0 ? "." + fs : "")
}

func formatRatio(_ x: Double) -> String { formatDecimal(x, places: 2) + "×" }

func formatBytes(_ x: Double) -> String {
    guard x.isFinite else { return "n/a" }
    if x >= Double(1 << 30) { return formatDecimal(x / Double(1 << 30), places: 2) + " GiB" }
    if x >= Double(1 << 20) { return formatDecimal(x / Double(1 << 20), places: 1) + " MiB" }
    return formatDecimal(x / 1024, places: 1) + " KiB"
}

func formatValue(_ x: Double, _ unit: String) -> String {
    switch unit {
    case "bytes": return formatBytes(x)
    case "x": return formatRatio(x)
    default: return formatNumber(x) + " " + unit
    }
}

func jsonNumber(_ x: Double) -> String {
    guard x.isFinite else { return "null" }
    if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
    return formatDecimal(x, places: abs(x) >= 100 ? 1 : 4)
}

func jsonString(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default:
            if c.value < 0x20 { out += "\\u00" + (c.value < 16 ? "0" : "") + String(c.value, radix: 16) } else { out.unicodeScalars.append(c) }
        }
    }
    return out + "\""
}

extension String {
    var groupedThousands: String {
        var digits = Array(self)
        var sign = ""
        if digits.first == "-" { sign = "-"; digits.removeFirst() }
        var out: [Character] = []
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return sign + String(out)
    }
}
