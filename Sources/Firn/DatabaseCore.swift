import FirnCore

/// The state behind one live `Database` instance: bound to one thread or
/// serial queue, it holds one `read` pin (moved by `refresh`, released by
/// `invalidate`) and, between `beginWrite` and commit or cancel, the write
/// transaction. Not thread-safe: every entry point checks the binding first.
final class DatabaseCore: ObjectSource {
    let configuration: Configuration
    let store: Store
    let binding: InstanceBinding
    /// The bound thread's handle when the binding is a thread: the check
    /// made on every access compares it without copying the binding (whose
    /// payload holds a string to retain).
    private let boundThread: ThreadIdentity.Handle?
    /// The binding is the main actor.
    private let bindsMainActor: Bool
    /// Whether the instance moves to the latest version by itself, at the
    /// points docs/SDK.md lists (writes move it whatever this says).
    var autorefresh = true
    /// Counts the `invalidate()` calls that released the pin: objects made
    /// before the last one are invalidated.
    private(set) var session: UInt64 = 0
    /// The read pin, or the released snapshot of the last version read
    /// (`released`) until the next use pins the latest version again.
    private(set) var snapshot: Snapshot
    private var released = false
    private(set) var transaction: WriteTransaction?
    private(set) var generation: UInt64 = 1
    /// The first failure of a property setter in this write; the commit throws it.
    private var deferredError: DatabaseError?
    let infos: [ObjectIdentifier: ClassInfo]
    private var readers = TreeReaders()
    private var readersGeneration: UInt64 = 0
    /// Next generated key per type without a primary key, in this write.
    var nextIDs: [String: UInt64] = [:]
    private weak var frozen: FrozenVersion?
    /// The asynchronous writes (`writeAsync`, `beginAsyncWrite`…), made on first use.
    private var asyncQueue: AsyncWriteQueue?
    /// `asyncWrite` calls of this instance suspended for the writer lock:
    /// a synchronous write here would wait for a lock they hold or are
    /// queued for, and they can only resume once this binding is free.
    var suspendedAsyncWrites = 0
    /// Set by `close()`: the instance pins nothing again.
    private var closed = false
    /// The change observers (`observe`), made by the first one.
    var notifier: Notifier?
    /// The references the instance cache and the autorefresh watcher hold
    /// (not `weak`: see `UnretainedReference`), cleared by `deinit`.
    private let unretainedReferences = Locked<[UnretainedReference<DatabaseCore>]>([])

    init(configuration: Configuration, store: Store, binding: InstanceBinding = .thread(.current)) throws(DatabaseError) {
        self.configuration = configuration
        self.store = store
        self.binding = binding
        if case let .thread(thread) = binding { boundThread = thread.handle } else { boundThread = nil }
        if case .mainActor = binding { bindsMainActor = true } else { bindsMainActor = false }
        var infos: [ObjectIdentifier: ClassInfo] = [:]
        for type in configuration.objectTypes { infos[ObjectIdentifier(type)] = try ClassInfo.of(type) }
        for info in infos.values { try info.checkLinkingProperties(in: infos) }
        self.infos = infos
        try SchemaMigration.prepare(store: store, configuration: configuration, schemas: infos.values.map(\.schema))
        snapshot = try Self.pinLatest(store, configuration: configuration, binding: binding, operation: "opening a Database")
    }

    /// A `read` pin on the latest version, labelled with the binding;
    /// released again when it would go past the configuration's
    /// `maximumNumberOfActiveVersions`.
    private static func pinLatest(
        _ store: Store, configuration: Configuration, binding: InstanceBinding, operation: String
    ) throws(DatabaseError) -> Snapshot {
        let label = "Database on \(binding.description)"
        let snapshot = try engine { () throws(FirnError) in try store.snapshot(kind: .read, label: label) }
        snapshot.setHolder(threadID: binding.holderThreadID, label: label)
        do {
            try ActiveVersionLimit.check(store, limit: configuration.maximumNumberOfActiveVersions, pinning: snapshot.version,
                                         own: snapshot.pinSlotIndex, operation: operation)
        } catch {
            snapshot.close()
            throw error
        }
        return snapshot
    }

    deinit {
        // First: from here no cache or watcher can retain this instance.
        for reference in unretainedReferences.withLock({ $0 }) { reference.clear() }
        transaction?.abort()
        snapshot.close()
    }

    /// A reference to this instance that does not keep it alive, cleared
    /// when it goes (for the instance cache and the autorefresh watcher).
    func unretainedReference() -> UnretainedReference<DatabaseCore> {
        let reference = UnretainedReference(self)
        unretainedReferences.withLock { $0.append(reference) }
        return reference
    }

    var isFrozen: Bool { false }

    @inline(__always)
    func checkAccess() {
        // The main actor's instance on the main thread: one compare, not
        // the binding's switch (two checks an object read in a loop).
        if bindsMainActor, isProcessMainThread() { return }
        if let boundThread {
            if ThreadIdentity.isCurrent(boundThread) { return }
        } else if binding.isCurrent {
            return
        }
        binding.failIncorrectThread()
    }

    func changed() { generation &+= 1 }

    func info(_ type: Object.Type) throws(DatabaseError) -> ClassInfo {
        guard let info = infos[ObjectIdentifier(type)] else {
            throw DatabaseError.typeNotInConfiguration(type: String(describing: type))
        }
        return info
    }

    // MARK: reading

    private func reader(_ name: String) throws(DatabaseError) -> TreeReader? {
        try repinIfReleased()
        if readersGeneration != generation {
            readers.removeAll()
            readersGeneration = generation
        }
        return try readers.reader(name, in: snapshot)
    }

    func value(in tree: String, key: [UInt8]) throws(DatabaseError) -> RecordBytes? {
        if let transaction {
            return try engine { () throws(FirnError) in
                try transaction.tree(tree, create: false)?.get(key).map(RecordBytes.owned)
            }
        }
        guard let reader = try reader(tree) else { return nil }
        return try engine { () throws(FirnError) in try reader.get(key).map(RecordBytes.mapped) }
    }

    func cursor(in tree: String) throws(DatabaseError) -> Cursor? {
        if let transaction {
            return try engine { () throws(FirnError) in try transaction.tree(tree, create: false)?.cursor() }
        }
        return try reader(tree)?.cursor()
    }

    func count(in tree: String) throws(DatabaseError) -> Int {
        if let transaction {
            let count = try engine { () throws(FirnError) in try transaction.tree(tree, create: false)?.count }
            return Int(clamping: count ?? 0)
        }
        return Int(clamping: try reader(tree)?.count ?? 0)
    }

    func objectCreated() {}
    func objectReleased() {}

    /// A live object of `type` for `key`, nil when no record has that key.
    func object<T: Object>(_ type: T.Type, key: [UInt8]) throws(DatabaseError) -> T? {
        checkAccess()
        let info = try info(type)
        guard let record = try record(info, key: key) else { return nil }
        let object = T()
        object.managed = ManagedObject(source: self, info: info, key: key, record: record)
        return object
    }

    /// Moves the read pin to the latest version (same reader slot); after
    /// `invalidate()`, pins it again. True when the version changed.
    @discardableResult
    func refresh() throws(DatabaseError) -> Bool {
        checkAccess()
        guard transaction == nil else { return false }
        return try moveToLatest()
    }

    @discardableResult
    private func moveToLatest() throws(DatabaseError) -> Bool {
        let before = snapshot.version
        if released {
            try repinIfReleased()
        } else {
            let store = store, old = snapshot
            do {
                snapshot = try engine { () throws(FirnError) in try store.refresh(old) }
            } catch {
                // The engine closed the old snapshot: pin again at next use.
                released = true
                changed()
                throw error
            }
            if snapshot !== old { changed() }
        }
        return snapshot.version != before
    }

    /// The instance was asked for again (`Database(configuration:)`): with
    /// autorefresh on and no write open, it moves to the latest version.
    func obtained() throws(DatabaseError) {
        guard autorefresh, transaction == nil else { return }
        try moveToLatest()
    }

    /// A queue-bound instance's refresh after a commit, run on its queue
    /// between blocks (`QueueAutorefresh`). Skipped with autorefresh off, in
    /// a write, and after `invalidate()` (the next use pins anew). A failure
    /// has nobody to report to: the pin is then released (see
    /// `moveToLatest`) and the next use pins the latest version again.
    func autorefreshBetweenBlocks() {
        guard transaction == nil, !released else { return }
        if autorefresh { _ = try? moveToLatest() }
        // Changes the instance moved past (this refresh, or its own async
        // commits) reach its observers here, whatever autorefresh says.
        notifier?.deliver()
    }

    /// True after `invalidate()` until the next use pins again.
    var isReleased: Bool { released }

    /// Makes the instance read `version` or later (where a reference was
    /// made): it refreshes when it reads an older one. Not in a write, which
    /// reads the latest version already.
    func catchUp(to version: UInt64) throws(DatabaseError) {
        checkAccess()
        guard transaction == nil, try self.version < version else { return }
        try moveToLatest()
    }

    /// The version read, pinned again first after `invalidate()`.
    var version: UInt64 {
        get throws(DatabaseError) {
            try repinIfReleased()
            return snapshot.version
        }
    }

    /// The read snapshot, pinned again first after `invalidate()`.
    var readSnapshot: Snapshot {
        get throws(DatabaseError) {
            try repinIfReleased()
            return snapshot
        }
    }

    /// The version a reference made now refers to: the one read, or, in a
    /// write transaction, the one its commit will make.
    var referenceVersion: UInt64 {
        get throws(DatabaseError) {
            if let transaction { return transaction.version }
            return try version
        }
    }

    /// Releases the read pin (cancelling a write in progress): objects read
    /// so far are invalidated; the next use pins the latest version.
    func invalidate() {
        checkAccess()
        // Pending async writes finish first (run here, on the binding).
        asyncQueue?.waitUntilIdle()
        if transaction != nil { cancelWrite() }
        guard !released else { return }
        snapshot.close()
        released = true
        session &+= 1
        changed()
    }

    private func repinIfReleased() throws(DatabaseError) {
        guard released else { return }
        if closed { throw DatabaseError.closed }
        snapshot = try Self.pinLatest(store, configuration: configuration, binding: binding, operation: "pinning again after invalidate()")
        released = false
        changed()
    }

    /// The frozen version this instance reads now, shared with every other
    /// frozen value of that version in the process.
    func frozenVersion(operation: String) throws(DatabaseError) -> FrozenVersion {
        checkAccess()
        // Realm refuses this too; the old message said the live instance was frozen.
        guard transaction == nil else { throw DatabaseError.inWriteTransaction(operation: operation) }
        return try frozenVersion(at: try version)
    }

    /// The frozen version of `version`, which a pin of this instance holds
    /// (its read pin, or the step a notification delivers), shared with
    /// every other frozen value of that version in the process.
    func frozenVersion(at version: UInt64) throws(DatabaseError) -> FrozenVersion {
        if let frozen, frozen.version == version { return frozen }
        // No limit check: the version is this instance's, pinned already.
        let store = store
        let share = try engine { () throws(FirnError) in
            try store.sharedSnapshot(version: version, kind: .frozen, label: "frozen objects")
        }
        let frozen = FrozenVersion(share: share, configuration: configuration, infos: infos)
        self.frozen = frozen
        return frozen
    }

    // MARK: asynchronous writes

    /// The instance's async write queue, made on first use.
    var asyncWrites: AsyncWriteQueue {
        if let asyncQueue { return asyncQueue }
        let queue = AsyncWriteQueue(core: self)
        asyncQueue = queue
        return queue
    }

    /// True from the first async write request until the last completion.
    /// An `asyncWrite` block running now counts too, as in Realm.
    var isPerformingAsyncWrites: Bool { runningAsyncWriteBlocks > 0 || (asyncQueue?.isPerforming ?? false) }
    /// `asyncWrite` blocks (the `async` API) running on this instance now.
    var runningAsyncWriteBlocks = 0

    /// Waits for every pending async write of this instance (running its
    /// blocks and completions here), then releases the read pin like
    /// `invalidate()`; the instance leaves the cache and pins nothing again.
    func close() {
        checkAccess()
        asyncQueue?.waitUntilIdle()
        invalidate()
        closed = true
        // Its observers hear nothing more; their base version is released.
        notifier?.instanceClosed()
        notifier = nil
        InstanceCache.forget(self)
    }

    // MARK: writing

    var isInWriteTransaction: Bool { transaction != nil }

    func beginWrite() throws(DatabaseError) {
        checkAccess()
        guard !configuration.readOnly else { throw DatabaseError.readOnly(operation: "beginWrite") }
        guard transaction == nil else { throw DatabaseError.alreadyInWriteTransaction }
        guard suspendedAsyncWrites == 0 else { throw DatabaseError.asyncWriteInProgress(operation: "beginWrite") }
        // Async writes asked for before run first, in order; so do those of
        // the other instances of this file bound here, whose writer lock
        // would otherwise wait for a block only this caller can run.
        asyncQueue?.completeQueuedRequests()
        for sibling in InstanceCache.siblings(of: self) { sibling.asyncQueue?.completeQueuedRequests() }
        guard transaction == nil else { throw DatabaseError.alreadyInWriteTransaction }
        let store = store
        let transaction = try engine { () throws(FirnError) in try store.beginWriteBlocking() }
        try adopt(transaction)
    }

    /// Makes `transaction` (this instance's writer lock, taken here or by
    /// the async write worker) the instance's write transaction; aborts it
    /// when the instance cannot write.
    func adopt(_ transaction: WriteTransaction) throws(DatabaseError) {
        let store = store
        do {
            // A write builds on the latest version: the instance reads it
            // from here on, whatever autorefresh says, so objects read
            // before the write see the state it changes.
            try moveToLatest()
            // Observers are told of other writers' changes apart from this one's.
            notifier?.writeBegan(at: snapshot)
            // Its commit moves this instance's read pin to the new version.
            try ActiveVersionLimit.checkWrite(store, limit: configuration.maximumNumberOfActiveVersions,
                                              reading: snapshot.version)
        } catch {
            transaction.abort()
            throw error
        }
        self.transaction = transaction
        deferredError = nil
        nextIDs = [:]
        changed()
    }

    /// Commits; `.deferred` leaves the durable sync to the caller (async
    /// writes). Returns the version committed (the base when nothing changed).
    @discardableResult
    func commitWrite(durability: CommitDurability = .durable) throws(DatabaseError) -> UInt64 {
        checkAccess()
        guard let transaction else { throw DatabaseError.notInWriteTransaction(operation: "commitWrite") }
        self.transaction = nil
        changed()
        if let deferredError {
            transaction.abort()
            throw deferredError
        }
        let version: UInt64
        do {
            try GeneratedKeys.record(nextIDs, in: transaction)
            version = try transaction.commit(durability: durability)
        } catch {
            transaction.abort()
            throw DatabaseError.engine(error)
        }
        // Nothing changed: the engine made no version, so no delivery has a
        // step to report; database observers hear of the commit anyway.
        if version == transaction.baseVersion { notifier?.emptyCommit = true }
        // The instance reads what it just wrote, as after any commit.
        try refresh()
        return version
    }

    func cancelWrite() {
        checkAccess()
        transaction?.abort()
        transaction = nil
        changed()
    }

    func `defer`(_ error: DatabaseError) {
        if deferredError == nil { deferredError = error }
    }
}
