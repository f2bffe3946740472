import ArgumentParser

/// The numeric options' parsing and range checks, in one place. Every
/// numeric option of every command is declared with one of these as its
/// `transform` (and `parsing: .unconditional`, so `--seconds -1` reaches the
/// check instead of being taken for an option): a value that is not a
/// number, not finite or out of range is a usage error (exit 64) that names
/// the option and the range it accepts, before anything runs — so the
/// commands, and FirnTools below them, only ever see values in range.
enum NumericOption {
    /// Why a value was refused; the parser prefixes it with the option.
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Versions are below 2^63 (a version at or above it is a defect of the file).
    static let largestVersion = UInt64(Int64.max)

    static let lockTimeout = number(0...86_400, "seconds")
    static let seconds = number(0...31_536_000, "seconds")
    static let percent = number(0...100, "percent")
    static let version = whole(1...largestVersion)
    static let page = whole(0...largestVersion)
    static let commits = whole(0...largestVersion)
    static let batch = whole(1...10_000_000)
    static let objectLimit = whole(1...1_000_000_000)
    static let demoCommits = whole(1...100_000)
    static let findings = whole(1...1_000_000)
    static let width = whole(10...400)
    static let level = whole(Int32(0)...12)
    static let age = duration(maxDays: 3650)
    static let retained = size(maxTiB: 1024)

    /// A finite decimal number in `range`.
    static func number(_ range: ClosedRange<Double>, _ unit: String) -> @Sendable (String) throws -> Double {
        { text in
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw Refused(description: "expected a number of \(unit) from \(plain(range.lowerBound)) to \(plain(range.upperBound))")
            }
            return value
        }
    }

    /// A whole number in `range` (decimal digits; no exponent, no fraction).
    static func whole<T: FixedWidthInteger & Sendable>(_ range: ClosedRange<T>) -> @Sendable (String) throws -> T {
        { text in
            guard let value = T(text, radix: 10), range.contains(value) else {
                throw Refused(description: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
    }

    /// A duration ("90s", "15m", "2h", "1d" or seconds) up to `maxDays`, in seconds.
    static func duration(maxDays: Int) -> @Sendable (String) throws -> Double {
        { text in
            guard let seconds = parseDuration(text), seconds <= Double(maxDays) * 86_400 else {
                throw Refused(description: "expected a duration from 0s to \(maxDays)d (e.g. 90s, 15m, 2h, 1d)")
            }
            return seconds
        }
    }

    /// A size ("512MiB", "2G" or bytes) up to `maxTiB` TiB, in bytes.
    static func size(maxTiB: UInt64) -> @Sendable (String) throws -> UInt64 {
        { text in
            guard let bytes = parseSize(text), bytes <= maxTiB << 40 else {
                throw Refused(description: "expected a size from 0 to \(maxTiB)TiB (e.g. 512MiB, 2G)")
            }
            return bytes
        }
    }

    /// 86400.0 → "86400", 0.5 → "0.5".
    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Parses "1.5G", "100MiB", "512k", "4096": bytes (binary multiples).
    static func parseSize(_ text: String) -> UInt64? {
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
    static func parseDuration(_ text: String) -> Double? {
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
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
