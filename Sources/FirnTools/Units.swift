import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// The reports' timestamps: a wall-clock stamp as ISO 8601 UTC (how the
/// JSON carries a time) and the age of a stamp another process recorded.
package enum Units {
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
