#if canImport(Glibc)
import Glibc
#endif

/// Time arithmetic and formatting for the lock file. The clocks themselves
/// are read in Clocks.swift: the wall clock for the times the lock file
/// records (pinned since, writer since, session opened at), the monotonic
/// clock for timeouts.
enum LockClock {
    /// A duration in nanoseconds, clamped to 0…Int64.max.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return Int64.max }
        let (total, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? Int64.max : total
    }

    /// "0.2", "1.5", "30": seconds with at most three decimals.
    static func seconds(_ nanoseconds: Int64) -> String {
        let milliseconds = nanoseconds / 1_000_000
        let whole = milliseconds / 1000
        var fraction = String(milliseconds % 1000)
        if fraction == "0" { return String(whole) }
        while fraction.count < 3 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    /// "2025-01-31T12:34:56Z" for wall-clock nanoseconds since 1970.
    static func iso8601(_ nanoseconds: UInt64) -> String {
        var seconds = time_t(clamping: nanoseconds / 1_000_000_000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(nanoseconds) ns" }
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))Z"
    }
}
