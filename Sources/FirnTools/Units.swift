import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Parsing and printing of sizes, durations and times, shared by the
/// reports' sentences and the CLI's text output.
package enum Units {
    /// "4.1 GiB", "812 KiB", "96 B".
    package static func bytes(_ value: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1024 && unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        if unit == 0 { return "\(value) B" }
        return amount >= 100 ? "\(Int(amount.rounded())) \(units[unit])" : "\(oneDecimal(amount)) \(units[unit])"
    }

    /// Signed byte difference: "+1.2 MiB", "-40 KiB".
    package static func delta(_ before: UInt64, _ after: UInt64) -> String {
        after >= before ? "+" + bytes(after - before) : "-" + bytes(before - after)
    }

    package static func oneDecimal(_ value: Double) -> String {
        // Beyond Int's range (or not a number), Int(_:) would trap.
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        let scaled = (value * 10).rounded()
        let whole = Int(scaled / 10)
        let tenth = abs(Int(scaled) % 10)
        return "\(whole).\(tenth)"
    }

    /// 1532 → "1,532".
    package static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }

    /// "2 h", "5 min", "40 s", "3 d".
    package static func duration(seconds: Double) -> String {
        let s = max(0, seconds)
        if s < 90 { return "\(Int(s.rounded())) s" }
        if s < 90 * 60 { return "\(Int((s / 60).rounded())) min" }
        if s < 36 * 3600 { return "\(oneDecimal(s / 3600).replacingSuffix(".0")) h" }
        return "\(oneDecimal(s / 86400).replacingSuffix(".0")) d"
    }

    /// Parses "1.5G", "100MiB", "512k", "4096": bytes (binary multiples).
    package static func parseSize(_ text: String) -> UInt64? {
        let lower = text.lowercased().trimmingSpaces
        let suffixes: [(String, Double)] = [
            ("tib", 0x1p40), ("gib", 0x1p30), ("mib", 0x1p20), ("kib", 0x1p10),
            ("tb", 0x1p40), ("gb", 0x1p30), ("mb", 0x1p20), ("kb", 0x1p10),
            ("t", 0x1p40), ("g", 0x1p30), ("m", 0x1p20), ("k", 0x1p10), ("b", 1),
        ]
        for (suffix, factor) in suffixes where lower.hasSuffix(suffix) {
            guard let number = Double(lower.dropLast(suffix.count).trimmingSpaces), number >= 0,
                  number * factor < 0x1p63 else { return nil }
            return UInt64(number * factor)
        }
        guard let number = Double(lower), number >= 0, number < 0x1p63 else { return nil }
        return UInt64(number)
    }

    /// Parses "90s", "15m", "2h", "1d", "1.5h" or plain seconds (finite, not negative).
    package static func parseDuration(_ text: String) -> Double? {
        let lower = text.lowercased().trimmingSpaces
        let suffixes: [(String, Double)] = [
            ("ms", 0.001), ("sec", 1), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604800),
        ]
        for (suffix, factor) in suffixes where lower.hasSuffix(suffix) {
            guard let number = Double(lower.dropLast(suffix.count).trimmingSpaces), number >= 0,
                  (number * factor).isFinite else { return nil }
            return number * factor
        }
        guard let number = Double(lower), number >= 0, number.isFinite else { return nil }
        return number
    }

    /// "2025-01-31T12:00:00Z" for nanoseconds since 1970 (UTC).
    package static func iso8601(nanoseconds: UInt64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Seconds from `nanoseconds` (wall clock) to now; 0 for the future.
    package static func secondsSince(nanoseconds: UInt64) -> Double {
        elapsedSeconds(since: nanoseconds, until: wallClockNanoseconds())
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }

    func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
