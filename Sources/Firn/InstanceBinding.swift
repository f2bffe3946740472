import Dispatch
import FirnCore

/// What a live instance (and its results and objects) may be used from:
/// the thread that made it, a serial queue while it runs a block (on
/// whichever worker thread), an actor, or the main actor. Checked on every
/// access.
enum InstanceBinding: Sendable {
    case thread(ThreadIdentity)
    case queue(QueueIdentity)
    case actor(ActorIdentity)
    /// The main actor, whoever opened the instance there: top-level code,
    /// a `@MainActor` function, a main-queue block, or the main thread of a
    /// program that never runs the main queue. Not the main *thread*: on
    /// Linux, main-actor code runs on another thread after the first
    /// `await` (libdispatch's `dispatch_main` ends the main thread and the
    /// main queue is drained elsewhere), and an instance bound to the
    /// thread that opened it stopped the program there. The main actor's
    /// executor is the main queue, so "on the main actor" is "on the main
    /// queue": one specifics lookup (`QueueIdentity.main`), true on the
    /// main thread too, which libdispatch counts as the main queue's.
    case mainActor

    /// The part of the instance cache's key that names the binding.
    enum Key: Hashable {
        case thread(Int64)
        case queue(ObjectIdentifier)
        case actor(ObjectIdentifier)
        case mainActor
    }

    var key: Key {
        switch self {
        case let .thread(thread): return .thread(thread.tid)
        case let .queue(queue): return .queue(ObjectIdentifier(queue.token))
        case let .actor(actor): return .actor(ObjectIdentifier(actor.actor))
        case .mainActor: return .mainActor
        }
    }

    var isCurrent: Bool {
        switch self {
        case let .thread(thread): return thread.isCurrent
        case let .queue(queue): return queue.isCurrent
        case let .actor(actor): return actor.isCurrent
        // The main thread first (`isProcessMainThread`, one compare): the
        // specifics lookup, with the retains of its generic box, was ~11%
        // of iterating a main-actor instance's objects (two checks an
        // object). Main-actor code on another thread (Linux, after an
        // `await`) takes the lookup.
        case .mainActor: return isProcessMainThread() || QueueIdentity.main.isCurrent
        }
    }

    /// The thread id recorded as the holder of the instance's pins: 0 for a
    /// queue or an actor, whose work runs on any worker thread.
    var holderThreadID: Int64 {
        switch self {
        case let .thread(thread): return thread.tid
        case .queue, .actor, .mainActor: return 0
        }
    }

    /// "thread 1234 (main)" or `queue "bg"`.
    var description: String {
        switch self {
        case let .thread(thread): return thread.description
        case let .queue(queue): return queue.description
        case let .actor(actor): return actor.description
        case .mainActor: return "the main actor"
        }
    }

    /// Runs `body` on the binding later: a block on the queue, a task on
    /// the actor. A thread has no loop to run it on: false, and the thread
    /// runs what is pending at its next pump point (docs/SDK.md).
    @discardableResult
    func schedule(_ body: @escaping @Sendable () -> Void) -> Bool {
        switch self {
        case .thread: return false
        case let .queue(queue):
            queue.queue.async(execute: body)
            return true
        case let .actor(actor):
            actor.enqueue(body)
            return true
        case .mainActor:
            // The main actor's jobs are main-queue blocks: this runs
            // between them, as a task on the main actor would.
            DispatchQueue.main.async(execute: body)
            return true
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
