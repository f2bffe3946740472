#if canImport(Glibc)
import Glibc
#endif

/// Work handed to a second thread while the caller goes on with its own
/// share: the two-core walks of `verify` and of the open-time check
/// (issue 28). A plain POSIX thread, created and joined: the join is what
/// hands the result back, and ThreadSanitizer sees both ends of it.
///
/// The work's state is given whole to the other thread and taken back whole
/// at `join()`; neither thread touches it in between, which is why a
/// non-Sendable body is accepted (`@unchecked`).
package final class SideThread<Result>: SideThreadRun, @unchecked Sendable {
    private let body: () -> Result
    private var result: Result?
    private var thread = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread; nil when no thread could be made (the
    /// caller then does the work itself).
    package init?(_ body: @escaping () -> Result) {
        self.body = body
        super.init()
        let context = Unmanaged.passRetained(self as SideThreadRun).toOpaque()
        let made = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<SideThreadRun>.fromOpaque(context).takeRetainedValue().runBody()
            return nil
        }, context)
        guard made == 0 else {
            Unmanaged<SideThreadRun>.fromOpaque(context).release()
            return nil
        }
    }

    override package func runBody() { result = body() }

    /// Waits for the body to end and returns what it returned (once).
    package func join() -> Result {
        precondition(!joined, "SideThread: joined twice")
        joined = true
        pthread_join(thread, nil)
        guard let result else { preconditionFailure("SideThread: the body ended without a result") }
        return result
    }
}

/// The walks over a whole file that split their work with a `SideThread`
/// (the verifier's, the open-time check's).
enum TwoCoreWalk {
    /// Files of at least this many pages (32 MiB of 4 KiB pages) are walked
    /// on two cores; a smaller one is done before a second thread would
    /// have started.
    static let minimumPages: UInt64 = 8192
}

/// The part of `SideThread` the thread's entry point calls: a C function
/// cannot name the generic class.
package class SideThreadRun: @unchecked Sendable {
    package func runBody() {}
}
