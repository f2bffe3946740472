import Foundation

/// Runs `body` on a new thread named `name` and returns its result (the
/// caller waits): how the tests play "another thread" of an app.
func onNewThread<R: Sendable>(named name: String = "other", _ body: @escaping @Sendable () throws -> R) throws -> R {
    let box = Box<Result<R, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = Result { try body() }
        done.signal()
    }
    thread.name = name
    thread.start()
    done.wait()
    guard let result = box.value else { throw Unreachable() }
    return try result.get()
}

/// `queue.sync` that passes a thrown error through.
func onQueue<R: Sendable>(_ queue: DispatchQueue, _ body: @Sendable () throws -> R) throws -> R {
    try queue.sync { Result { try body() } }.get()
}

struct Unreachable: Error {}

/// A value handed between threads under a lock.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value under one hold of the lock: `box.value += 1` from
    /// several threads is a locked read and a separate locked write, and
    /// loses updates.
    func update(_ body: (inout Value) -> Void) {
        lock.withLock { body(&stored) }
    }
}
