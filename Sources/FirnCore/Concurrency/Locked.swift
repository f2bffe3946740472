#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`: the lock every module of the package
/// uses for its in-process state. Not `Synchronization.Mutex`: on Linux
/// that one waits on a bare futex, which ThreadSanitizer does not see, so
/// every access under it is reported as a race (checked with a four-thread
/// probe) and the concurrency suites could not be run under TSan at all;
/// ThreadSanitizer intercepts pthread mutexes and checks them for real.
///
/// `@unchecked Sendable` like `Mutex`: the value is only reached under the
/// lock; keep non-Sendable values from escaping `withLock`.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Unchecked: the mutex is what makes each access exclusive (a body
    /// that called `withLock` again would deadlock before it could
    /// overlap), and the run-time check cost about 80 instructions a call
    /// (thread-local access set, insert and remove) on every commit's many calls.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
