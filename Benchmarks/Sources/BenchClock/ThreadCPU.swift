#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds of CPU time the calling thread has used: for measuring work
/// (a row's or a profile's), unaffected by other threads' and processes'
/// load, unlike the monotonic clock. The benchmarks' own clock: the engine
/// has no use for it, and apps do not get it from FirnCore.
public func threadCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
}
