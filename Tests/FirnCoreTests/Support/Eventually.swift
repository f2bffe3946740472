#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` until it holds, for at most `timeout`.
func eventually(within timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(1_000)
    }
    return try condition()
}
