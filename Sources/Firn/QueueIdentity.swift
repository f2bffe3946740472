import Dispatch
import FirnCore

/// A serial `DispatchQueue` as the binding of a live instance. libdispatch
/// has no "current queue", so each bound queue carries a token in its
/// specifics under one process-wide key: code runs on the queue exactly when
/// `DispatchQueue.getSpecific(key:)` (which looks at the queue running the
/// block, then at its targets) returns that token.
struct QueueIdentity: @unchecked Sendable {
    /// Retained so the token, and the cache key made from it, cannot be
    /// reused by another queue while an instance bound to this one lives.
    let queue: DispatchQueue
    let token: QueueToken

    /// The key of every bound queue's token.
    private static let key = DispatchSpecificKey<QueueToken>()
    /// Serializes the first binding of a queue: two threads must not both
    /// give it a token (the loser's instances would never see theirs).
    /// It counts the tokens given: a `Locked<Void>` guarded no bytes, and
    /// ThreadSanitizer reported the accesses to its empty value as a race.
    private static let tokenLock = Locked<Int>(0)

    /// The queue's token, given to it on its first binding.
    init(_ queue: DispatchQueue) {
        self.queue = queue
        token = Self.tokenLock.withLock { given in
            if let token = queue.getSpecific(key: Self.key) { return token }
            given += 1
            let token = QueueToken(label: queue.label)
            queue.setSpecific(key: Self.key, value: token)
            return token
        }
    }

    /// The main queue: the main actor's executor, and the queue libdispatch
    /// counts the main thread as running.
    static let main = QueueIdentity(DispatchQueue.main)

    /// True when the calling code runs on this queue (one specifics lookup).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) === token }

    /// The token of the bound queue running the caller, if any.
    static var currentToken: QueueToken? { DispatchQueue.getSpecific(key: key) }

    /// `queue "bg"`.
    var description: String { token.description }
}
