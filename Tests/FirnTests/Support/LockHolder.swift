import Firn
import Foundation
import FirnTestSupport

/// Holds the writer lock on a thread of its own (a synchronous write of
/// another instance) until `release()`.
final class LockHolder: @unchecked Sendable {
    private let held = DispatchSemaphore(value: 0)
    private let go = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let released = Box(false)

    /// Whether `release()` was called yet (set before the lock is let go).
    var isReleased: Bool { released.value }

    init(_ configuration: Configuration) {
        let thread = Thread { [held, go, finished] in
            if let db = try? Database(configuration: configuration) {
                try? db.write {
                    try db.add(Dog(999, "holder"))
                    held.signal()
                    go.wait()
                }
            }
            finished.signal()
        }
        thread.name = "lock-holder"
        thread.start()
        held.wait()
    }

    /// Lets the lock go and waits until it is; more calls (a fallback
    /// `release(after:)` as well) only wait.
    func release() {
        var first = false
        released.update { wasReleased in
            first = !wasReleased
            wasReleased = true
        }
        if first { go.signal() }
        finished.wait()
        finished.signal()  // for any later call
    }

    /// Releases the lock from another thread after `delay`.
    func release(after delay: TimeInterval) {
        let thread = Thread { [self] in
            Thread.sleep(forTimeInterval: delay)
            release()
        }
        thread.start()
    }
}
