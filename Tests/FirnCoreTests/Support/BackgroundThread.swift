import Foundation

/// Runs a closure on its own OS thread (not the cooperative pool), for tests
/// of thread-owned resources such as the writer mutex or futex waits.
/// `join(timeout:)` returns the closure's result, or nil if it is still
/// running when the timeout expires.
final class BackgroundThread<Result: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result?

    init(_ body: @escaping @Sendable () -> Result) {
        let thread = Thread { [self] in
            let value = body()
            lock.withLock { result = value }
            done.signal()
        }
        thread.start()
    }

    /// Runs `body` on a new thread and waits for it.
    static func run(timeout: Duration = .seconds(30), _ body: @escaping @Sendable () -> Result) -> Result? {
        BackgroundThread(body).join(timeout: timeout)
    }

    func join(timeout: Duration) -> Result? {
        let (seconds, attoseconds) = timeout.components
        let wait = DispatchTime.now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        guard done.wait(timeout: wait) == .success else { return nil }
        return lock.withLock { result }
    }
}
