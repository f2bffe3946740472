import Dispatch
import FirnCore

/// Swift concurrency: an instance bound to an actor, writes that suspend
/// instead of blocking. Each entry point takes the caller's isolation
/// (`#isolation`) as a non-optional `isolated` parameter, so calling it
/// from nonisolated code does not compile.
///
/// ```swift
/// actor Kennel {
///     func adopt(_ name: String) async throws {
///         let db = try await Database.open(configuration: config)  // bound to this actor
///         try await db.asyncWrite { try db.add(Dog(name: name)) }
///     }
/// }
/// ```
extension Database {
    /// The instance of `configuration` bound to the calling actor: usable
    /// from code isolated to that actor, nowhere else. The same
    /// configuration on the same actor returns the same instance (moved to
    /// the latest version with `autorefresh`, like `init(configuration:)`).
    public static func open(
        configuration: Configuration, isolation actor: isolated (any Actor) = #isolation
    ) async throws(DatabaseError) -> Database {
        let core = try InstanceCache.instance(configuration, actor: ActorIdentity(actor: actor))
        try core.obtained()
        return Database(core: core)
    }

    /// Runs `block` in a write transaction and commits it, suspending (not
    /// blocking) while it waits for the writer lock and for the commit to
    /// be durable; the block runs on the caller's actor, which must be this
    /// instance's binding. A task cancelled before the lock was granted
    /// throws `CancellationError`: its block never runs and nothing is
    /// committed. A cancellation after that changes nothing. Rolled back
    /// and rethrown when `block` throws. As in Realm, the block may end the
    /// write itself with `cancelWrite()` (nothing is committed and the
    /// result is returned), and `isPerformingAsynchronousWriteOperations`
    /// is true while it runs.
    @discardableResult
    public func asyncWrite<Result>(
        isolation actor: isolated (any Actor) = #isolation, _ block: () throws -> Result
    ) async throws -> Result {
        guard case let .live(core) = instance else {
            throw DatabaseError.frozen(type: "Database", operation: "asyncWrite")
        }
        core.checkAccess()
        guard !core.configuration.readOnly else { throw DatabaseError.readOnly(operation: "asyncWrite") }
        guard !core.isInWriteTransaction else { throw DatabaseError.alreadyInWriteTransaction }
        let store = core.store
        core.suspendedAsyncWrites += 1
        let transaction: WriteTransaction
        do {
            transaction = try await store.beginWrite()
            core.suspendedAsyncWrites -= 1
        } catch let error as FirnError {
            core.suspendedAsyncWrites -= 1
            throw DatabaseError.engine(error)
        } catch {
            core.suspendedAsyncWrites -= 1
            throw error
        }
        core.checkAccess()
        try core.adopt(transaction)
        let result: Result
        core.runningAsyncWriteBlocks += 1
        do {
            defer { core.runningAsyncWriteBlocks -= 1 }
            result = try block()
        } catch {
            if core.isInWriteTransaction { core.cancelWrite() }
            throw error
        }
        // The block cancelled the write itself: nothing to commit.
        guard core.isInWriteTransaction else { return result }
        // Written and visible now; the sync happens on another thread.
        let version = try core.commitWrite(durability: .deferred)
        // Observers hear of it on the actor now, as after `write {}`.
        core.notifier?.deliver()
        try await Self.makeDurable(store, version: version)
        return result
    }

    /// Moves this instance to the latest version (see `refresh()`); true
    /// when the version changed. A refresh only moves a pin, so there is
    /// nothing to wait for: this is `refresh()` for code on the instance's
    /// actor, which reports a failure as no change.
    @discardableResult
    public func asyncRefresh(isolation actor: isolated (any Actor) = #isolation) async -> Bool {
        (try? refresh()) ?? false
    }

    /// Waits, off the caller's actor, until `version` is durable (one
    /// `Store.sync()`, which seals every deferred commit up to the latest).
    static func makeDurable(_ store: Store, version: UInt64) async throws(DatabaseError) {
        let result: Swift.Result<Void, DatabaseError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(FirnError) {
                    if try store.durableVersion < version { try store.sync() }
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(.engine(error)))
                }
            }
        }
        try result.get()
    }
}
