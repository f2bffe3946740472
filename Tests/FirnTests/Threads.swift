import Foundation
import FirnTestSupport

/// Runs `body` on a new thread named `name` and returns its result (the
/// caller waits): how the tests play "another thread" of an app.
func onNewThread<R: Sendable>(named name: String = "other", _ body: @escaping @Sendable () throws -> R) throws -> R {
    try BackgroundThread(name: name) { Result { try body() } }.join().get()
}

/// `queue.sync` that passes a thrown error through.
func onQueue<R: Sendable>(_ queue: DispatchQueue, _ body: @Sendable () throws -> R) throws -> R {
    try queue.sync { Result { try body() } }.get()
}

struct Unreachable: Error {}
