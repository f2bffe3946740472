#if canImport(Glibc)
import Glibc
#endif

// The two clocks, and the one place durations and deadlines are computed.
// The wall clock (CLOCK_REALTIME) is for stamps only — commit times, pinned
// since — because an administrator or NTP can step it back. Durations,
// timeouts and deadlines use the monotonic clock (CLOCK_MONOTONIC), and
// every conversion from user-given seconds saturates instead of trapping.

/// Nanoseconds since 1970 by the wall clock (0 for a clock set before 1970).
/// For stamps; never subtract two readings to time something.
package func wallClockNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return nanoseconds(now)
}

/// Nanoseconds of the monotonic clock (since an arbitrary point, never
/// stepped back): for durations, timeouts and deadlines.
package func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return nanoseconds(now)
}

/// Seconds from `start` to `end`, two readings of one clock (monotonic for a
/// duration; the wall clock only for the age of a recorded stamp); 0 when
/// `end` is not after `start`, so a duration is never negative and never traps.
package func elapsedSeconds(since start: UInt64, until end: UInt64 = monotonicNanoseconds()) -> Double {
    end > start ? Double(end - start) / 1e9 : 0
}

/// `seconds` as nanoseconds for a timeout: NaN and negatives are 0, values
/// past `Int64.max` nanoseconds (about 292 years) are `Int64.max`.
package func timeoutNanoseconds(seconds: Double) -> Int64 {
    guard seconds > 0 else { return 0 }  // also NaN
    let scaled = seconds * 1e9
    return scaled < 0x1p63 ? Int64(scaled) : Int64.max
}

/// The monotonic reading `seconds` from `now` (saturating; see `timeoutNanoseconds`).
package func monotonicDeadline(afterSeconds seconds: Double, now: UInt64 = monotonicNanoseconds()) -> UInt64 {
    let (sum, overflow) = now.addingReportingOverflow(UInt64(timeoutNanoseconds(seconds: seconds)))
    return overflow ? UInt64.max : sum
}

private func nanoseconds(_ time: timespec) -> UInt64 {
    UInt64(max(0, time.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, time.tv_nsec))
}
