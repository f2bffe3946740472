import FirnCore
import Foundation

/// What `observe` returns: notifications go on while it lives and until
/// `invalidate()`. It keeps the observed instance alive (a queue-bound
/// instance made inside one block still notifies in later ones).
/// `invalidate()` may be called from any thread; a callback already
/// running finishes, none starts after it returns.
public final class NotificationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Observation?
    private var core: DatabaseCore?

    init(observation: Observation, core: DatabaseCore) {
        stored = observation
        self.core = core
    }

    deinit { stored?.stop() }

    /// The observation, nil once invalidated.
    var observation: Observation? { lock.withLock { stored } }

    /// Stops the notifications of this token; later calls do nothing.
    public func invalidate() {
        let (observation, core) = lock.withLock { () -> (Observation?, DatabaseCore?) in
            defer {
                stored = nil
                self.core = nil
            }
            return (stored, self.core)
        }
        observation?.stop()
        // The instance goes (if this was its last user) outside the lock.
        _ = core
    }
}

/// What `Database.observe` reports.
public enum DatabaseNotification: Sendable {
    /// The instance moved to another version (a commit of this or another
    /// instance, thread or process, seen at a refresh point).
    case didChange
}

extension DatabaseCore {
    /// Registers `observation` (see `Notifier.add`); observing starts
    /// outside a write transaction only, as the instance must read a
    /// committed version to describe the next change against.
    func observe(_ observation: Observation, beginNow: Bool) throws(DatabaseError) -> NotificationToken {
        checkAccess()
        guard transaction == nil else { throw DatabaseError.alreadyInWriteTransaction }
        try Notifier.of(self).add(observation, beginNow: beginNow)
        return NotificationToken(observation: observation, core: self)
    }

    /// Whether a results' `.initial` callback runs inside `observe`: only a
    /// thread binding, which has no loop to run it later.
    var beginsInline: Bool {
        if case .thread = binding { return true }
        return false
    }
}

final class DatabaseObservation: Observation, @unchecked Sendable {
    private let block: @Sendable (DatabaseNotification, Database) -> Void

    init(_ block: @escaping @Sendable (DatabaseNotification, Database) -> Void) { self.block = block }

    override func update(_ changes: VersionChanges, core: DatabaseCore, notify: Bool) {
        if notify { didChange(core) }
    }

    /// Also called for a commit of the instance that changed nothing (no
    /// version, so no step: `Notifier.deliverEmptyCommit`).
    func didChange(_ core: DatabaseCore) { block(.didChange, Database(core: core)) }
}

extension Database {
    /// Calls `block` with `.didChange` each time this instance moves to
    /// another version at a refresh point (docs/SDK.md "Notifications"):
    /// commits of this instance, other threads and other processes. On
    /// the instance's binding: its queue, its actor, or — for a thread —
    /// inside the call that refreshed (`refresh()`, a write's commit,
    /// `processAsyncWrites()`, `waitForAsyncWrites()`). A frozen instance
    /// throws `.frozen`; inside a write transaction this throws
    /// `.alreadyInWriteTransaction`.
    public func observe(_ block: @escaping @Sendable (DatabaseNotification, Database) -> Void) throws(DatabaseError) -> NotificationToken {
        guard case let .live(core) = instance else { throw DatabaseError.frozen(type: "Database", operation: "observe") }
        return try core.observe(DatabaseObservation(block), beginNow: true)
    }

    /// `write(_:)` whose commit is not reported to the observers of
    /// `tokens` (changes of other writers seen by the same refresh still
    /// are). Tokens of other instances are ignored.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken], _ block: () throws -> Result) throws -> Result {
        try beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        try commitWrite(withoutNotifying: tokens)
        return result
    }

    /// `commitWrite()` without notifying the observers of `tokens` of it.
    public func commitWrite(withoutNotifying tokens: [NotificationToken]) throws(DatabaseError) {
        let core = try writer("commitWrite")
        try core.commitWrite()
        core.notifier?.deliver(suppressing: tokens)
    }
}
