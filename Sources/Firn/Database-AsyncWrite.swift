import FirnCore

/// Asynchronous writes, as in the reference documents ("Perform a
/// Background Write", "Commit or Cancel an Async Write"): blocks run on the
/// instance's own thread, queue or actor, in the order they were asked for;
/// the waits for the writer lock and for the disk happen on a worker of the
/// instance's, never on the caller. Where blocks and completions of a
/// thread-bound instance run: docs/SDK.md.
///
/// ```swift
/// db.writeAsync {
///     person.dogs.append(rex)
/// } onComplete: { error in
///     // on db's queue, once the write is durable (or failed)
/// }
/// ```
extension Database {
    /// Runs `block` in a write transaction on this instance's queue, actor
    /// or thread, once the writer lock is granted (waited for elsewhere),
    /// and commits it when the block returns — rolled back when it throws.
    /// `onComplete` runs on the instance's binding after the commit is
    /// durable, with nil or the error; it is not called when the request
    /// was cancelled by its id. Returns at once.
    @discardableResult
    public func writeAsync(_ block: @escaping @Sendable () throws -> Void,
                           onComplete: (@Sendable ((any Error)?) -> Void)? = nil) -> AsyncTransactionId {
        guard case let .live(core) = instance else {
            onComplete?(DatabaseError.frozen(type: "Database", operation: "writeAsync"))
            return 0
        }
        guard !core.configuration.readOnly else {
            onComplete?(DatabaseError.readOnly(operation: "writeAsync"))
            return 0
        }
        return core.asyncWrites.request(block, commitsAtEnd: true, onComplete: onComplete)
    }

    /// Queues `block` to run in a write transaction, like `writeAsync`, but
    /// the block commits it itself (`commitAsyncWrite`); a block that
    /// returns without committing cancels the transaction. The id cancels
    /// the request (`cancelAsyncWrite`).
    @discardableResult
    public func beginAsyncWrite(_ block: @escaping @Sendable () -> Void) -> AsyncTransactionId {
        guard case let .live(core) = instance else {
            fatalError("Firn: \(DatabaseError.frozen(type: "Database", operation: "beginAsyncWrite"))")
        }
        if core.configuration.readOnly { fatalError("Firn: \(DatabaseError.readOnly(operation: "beginAsyncWrite"))") }
        return core.asyncWrites.request(block, commitsAtEnd: false, onComplete: nil)
    }

    /// Commits the write transaction without waiting for the disk: returns
    /// at once, and the instance already reads the new version. `onComplete`
    /// runs on the instance's binding once the commit is durable, after the
    /// completions of earlier commits. With `allowGrouping`, consecutive
    /// async commits share one durable sync: a crash keeps all of them or
    /// none. The id cancels the callback only (`cancelAsyncWrite`). Outside
    /// a write transaction this stops the program.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false,
                                 _ onComplete: (@Sendable ((any Error)?) -> Void)? = nil) -> AsyncTransactionId {
        guard case let .live(core) = instance else {
            fatalError("Firn: \(DatabaseError.notInWriteTransaction(operation: "commitAsyncWrite on a frozen Database"))")
        }
        return core.asyncWrites.commit(allowGrouping: allowGrouping, onComplete: onComplete)
    }

    /// With an id from `beginAsyncWrite` or `writeAsync`: the block never
    /// runs, or, while it runs, its transaction is rolled back. With an id
    /// from `commitAsyncWrite`: only that callback is dropped; the commit
    /// stands. Throws `.unknownAsyncWrite` for an id that names nothing
    /// pending (unknown, or already over).
    public func cancelAsyncWrite(_ id: AsyncTransactionId) throws(DatabaseError) {
        guard case let .live(core) = instance else { throw DatabaseError.unknownAsyncWrite(id: id) }
        try core.asyncWrites.cancel(id)
    }

    /// True from the first async write request until its last completion
    /// has run; `close()` and `invalidate()` wait until it is false.
    public var isPerformingAsynchronousWriteOperations: Bool {
        guard case let .live(core) = instance else { return false }
        core.checkAccess()
        return core.isPerformingAsyncWrites
    }

    /// Runs, here and now, the async write blocks whose writer lock has been
    /// granted and the completions whose commits are durable; returns
    /// without waiting for more. A thread-bound instance has no loop that
    /// would run them: its thread calls this (or `waitForAsyncWrites()`).
    /// Queue- and actor-bound instances need not: they run by themselves.
    public func processAsyncWrites() {
        guard case let .live(core) = instance else { return }
        core.asyncWrites.process()
        core.notifier?.deliver()
    }

    /// Runs every pending async write block and completion here, waiting
    /// for the writer lock and the disk as needed, until
    /// `isPerformingAsynchronousWriteOperations` is false. Inside an async
    /// write block it returns at once (what is queued comes after it).
    public func waitForAsyncWrites() {
        guard case let .live(core) = instance else { return }
        core.asyncWrites.waitUntilIdle()
        core.notifier?.deliver()
    }

    /// Finishes the pending async writes (as `waitForAsyncWrites()`), then
    /// releases the instance: its read pin goes, its objects are
    /// invalidated (as by `invalidate()`), and asking for an instance of
    /// this configuration here again opens a new one. Using this one again
    /// throws (or, where it cannot throw, stops the program with)
    /// `DatabaseError.closed`. Does nothing on a frozen instance.
    public func close() {
        guard case let .live(core) = instance else { return }
        core.close()
    }
}
