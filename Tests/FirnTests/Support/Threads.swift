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

/// Objects are not Sendable (a live one belongs to its thread); tests
/// that cross threads on purpose carry them in this box. (Part 2 of the
/// SDK adds a Sendable form for frozen values.)
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Runs `body` on a new thread named "intruder" and waits for it: a live
/// object, result or instance used off its thread.
func useOnAnotherThread(_ body: @escaping @Sendable () -> Void) {
    BackgroundThread(name: "intruder") { body() }.join()
}
