import Foundation

/// Runs a closure on its own OS thread (not the cooperative pool), for tests
/// of thread-owned resources such as the writer mutex or futex waits, and
/// for "another thread" of an app. `join(timeout:)` returns the closure's
/// result, or nil if it is still running when the timeout expires.
package final class BackgroundThread<Result: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result?

    /// Starts `body` on a new thread (named `name`, when given).
    package init(name: String? = nil, _ body: @escaping @Sendable () -> Result) {
        let thread = Thread { [self] in
            let value = body()
            lock.withLock { result = value }
            done.signal()
        }
        if let name { thread.name = name }
        thread.start()
    }

    /// Runs `body` on a new thread and waits for it.
    package static func run(timeout: Duration = .seconds(30), _ body: @escaping @Sendable () -> Result) -> Result? {
        BackgroundThread(body).join(timeout: timeout)
    }

    package func join(timeout: Duration) -> Result? {
        let (seconds, attoseconds) = timeout.components
        let wait = DispatchTime.now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        guard done.wait(timeout: wait) == .success else { return nil }
        done.signal()
        return lock.withLock { result }
    }

    /// Waits for the closure's result, however long it takes.
    package func join() -> Result {
        done.wait()
        done.signal()
        return lock.withLock { result! }
    }
}
