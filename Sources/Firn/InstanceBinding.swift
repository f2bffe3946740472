import FirnCore

/// What a live instance (and its results and objects) may be used from:
/// the thread that made it, or a serial queue while it runs a block (on
/// whichever worker thread). Checked on every access.
enum InstanceBinding: Sendable {
    case thread(ThreadIdentity)
    case queue(QueueIdentity)

    /// The part of the instance cache's key that names the binding.
    enum Key: Hashable {
        case thread(Int64)
        case queue(ObjectIdentifier)
    }

    var key: Key {
        switch self {
        case let .thread(thread): return .thread(thread.tid)
        case let .queue(queue): return .queue(ObjectIdentifier(queue.token))
        }
    }

    var isCurrent: Bool {
        switch self {
        case let .thread(thread): return thread.isCurrent
        case let .queue(queue): return queue.isCurrent
        }
    }

    /// The thread id recorded as the holder of the instance's pins: 0 for a
    /// queue, whose blocks run on any worker thread.
    var holderThreadID: Int64 {
        switch self {
        case let .thread(thread): return thread.tid
        case .queue: return 0
        }
    }

    /// "thread 1234 (main)" or `queue "bg"`.
    var description: String {
        switch self {
        case let .thread(thread): return thread.description
        case let .queue(queue): return queue.description
        }
    }

    /// Stops the program naming both sides: the binding and where the
    /// caller runs (its thread, and its bound queue when it is on one).
    func failIncorrectThread() -> Never {
        var caller = ThreadIdentity.current.description
        if let queue = QueueIdentity.currentToken { caller += " on \(queue)" }
        fatalError("Database accessed from incorrect thread: bound to \(description), used from \(caller)")
    }
}
