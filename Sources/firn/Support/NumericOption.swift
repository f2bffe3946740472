import ArgumentParser
import FirnTools

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
            guard let seconds = Units.parseDuration(text), seconds <= Double(maxDays) * 86_400 else {
                throw Refused(description: "expected a duration from 0s to \(maxDays)d (e.g. 90s, 15m, 2h, 1d)")
            }
            return seconds
        }
    }

    /// A size ("512MiB", "2G" or bytes) up to `maxTiB` TiB, in bytes.
    static func size(maxTiB: UInt64) -> @Sendable (String) throws -> UInt64 {
        { text in
            guard let bytes = Units.parseSize(text), bytes <= maxTiB << 40 else {
                throw Refused(description: "expected a size from 0 to \(maxTiB)TiB (e.g. 512MiB, 2G)")
            }
            return bytes
        }
    }

    /// 86400.0 → "86400", 0.5 → "0.5".
    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
