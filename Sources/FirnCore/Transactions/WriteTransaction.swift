#if canImport(Glibc)
import Glibc
#endif

/// The one write transaction of a database. Changes are invisible to
/// everyone else until `commit`, which writes the new pages and the commit
/// record (into the slot not holding the last durable version), syncs once
/// (durability `.full`; `.twoPhase` also syncs between pages and record),
/// then publishes the new version. `commit(durability: .deferred)` skips the
/// sync and marks the record unsealed: the commit joins the open group, made
/// durable by the next `Store.sync()` or durable commit (FORMAT.md 8.1). A
/// power loss inside the one sync may keep the record and lose a page: the
/// open-time check (FORMAT.md 2.1) then rejects the record and the base
/// version stays current. Not tied to a thread: it may be begun on one
/// thread and committed or aborted on another (one thread at a time).
/// Dropping it without committing aborts it.
public final class WriteTransaction {
    /// The version this transaction commits as.
    public let version: UInt64
    /// The version it started from.
    public let baseVersion: UInt64
    public let store: Store
    private let lockFile: LockFile
    private let lease: WriterLease
    /// The thread that began the transaction, until another uses it.
    private var beginThread: pthread_t?
    private let context: WriteContext
    private let ledger: SpaceLedger
    private let catalog: MutableTree
    /// The trees this transaction has opened, by name: loaded from the base
    /// version, or fresh (created here, possibly after a drop). A name with
    /// no entry here is as the base version has it, unless in `dropped`.
    private var trees: [String: MutableTree] = [:]
    /// Names whose tree in `trees` is fresh: written at commit even when empty.
    private var created: Set<String> = []
    /// Names whose base-version tree was dropped: its catalog entry goes at
    /// commit unless `trees` holds a fresh tree of that name by then.
    private var dropped: Set<String> = []
    private var finished = false
    /// The slot this commit overwrites, as it was: restored if the commit
    /// record cannot be made durable.
    private let overwrittenSlot: [UInt8]
    private let base: CommitRecord
    /// The slot this commit's record goes into (FORMAT.md 8): the one not
    /// holding `durableBase`.
    private let targetSlot: Int
    /// The last durable version: the base itself, or, when the base is an
    /// unsealed member of an open group, the version the group builds on.
    public let durableBase: UInt64

    init(store: Store, lockFile: LockFile, lease: WriterLease) throws(FirnError) {
        self.store = store
        self.lockFile = lockFile
        self.lease = lease
        beginThread = pthread_self()
        let (slots, base, slotBytes) = try Self.chooseBase(store: store, lockFile: lockFile)
        self.base = base
        baseVersion = base.version
        version = base.version + 1
        (targetSlot, durableBase) = slots.slotForCommit(on: base)
        let pageSize = store.geometry.pageSize
        overwrittenSlot = slotBytes[targetSlot]
        let fileSize = try store.io.size()
        let map = try store.mapCovering(pages: base.logicalPageCount, version: base.version, fileSize: fileSize)
        let source = PageSource(map: map, pageSize: pageSize, pageLimit: base.logicalPageCount)
        let allocator = PageAllocator(
            pageSize: pageSize, logicalPageCount: base.logicalPageCount, fileSize: fileSize, io: store.io,
            runHint: store.runHint.withLock { $0.longest })
        let version = version
        context = WriteContext(
            source: source, geometry: store.geometry, version: version, io: store.io, allocator: allocator,
            remap: { [unowned store] (pages) throws(FirnError) in try store.mapCovering(pages: pages, version: version) })
        // Taken in any case: a transaction that aborts leaves none, and one
        // built on another version (another process committed) uses none.
        if let written = store.writtenNodes.withLock({ (kept) -> WrittenNodes? in
            defer { kept = nil }
            return kept
        }), written.version == base.version {
            context.writtenNodes = written
        }
        ledger = SpaceLedger(
            root: base.spaceRoot, freeCount: base.freePages, retiredCount: base.retiredPages, context: context)
        catalog = MutableTree(root: base.catalogRoot, count: 0, context: context)
        // Unowned: the ledger holds the context, which holds the allocator;
        // a strong capture closed that cycle, and every transaction leaked
        // its context, ledger and space-tree nodes (about 17 KB a commit,
        // and the node buffers never went back to PageBufferPool). The
        // transaction owns the ledger for as long as the allocator is used.
        allocator.readFree = { [unowned ledger] (from, limit) throws(FirnError) in
            try ledger.readFree(from: from, limit: limit)
        }
        // Versions a commit slot may still hold on disk are pins too
        // (FORMAT.md 7): D, the last durable version, and the version that
        // was in the other slot when D was synced (D's own durable base) —
        // until the next sync, the disk may still hold that one in the slot
        // the open group is overwriting. Their pages wait like a pinned
        // version's; the group's own intermediate versions are reused. For
        // an ordinary commit both are base or base − 1, which the batch rule
        // covers: no pin, no extra space-tree writes.
        var pins = lockFile.livePinnedVersions()
        var held = [durableBase]
        if let durable = slots.record(version: durableBase) { held.append(durable.durableBase) }
        for version in held where version >= 1 && version < base.version - 1 && !pins.contains(version) {
            pins.append(version)
        }
        pins.sort()
        do {
            try ledger.reclaim(baseVersion: base.version, livePins: pins)
            if pins.isEmpty { allocator.freePagesAtStart = ledger.freeCount }
        } catch {
            throw error.located(in: store.path, version: base.version)
        }
    }

    deinit {
        if !finished { abort() }
    }

    /// The version to commit on top of (FORMAT.md 2.1). Normally the newest
    /// record, which is the published version: its writer published it after
    /// its sync. A newest record that is not the published version was left
    /// by a writer that died before publishing (or nobody has published yet):
    /// it is checked, and the version accepted is published before anything
    /// is built on it. A rejected record's slot is then simply overwritten.
    /// Also returns the bytes of each slot's record area as read.
    static func chooseBase(store: Store, lockFile: LockFile) throws(FirnError) -> (CommitSlots, CommitRecord, [[UInt8]]) {
        let (read, bytes) = try store.slotReadBuffer.withLock { (buffer) throws(FirnError) in
            try CommitSlots.readWithBytes(store.io, pageSize: store.geometry.pageSize, buffer: &buffer)
        }
        var slots = read
        let published = lockFile.latestVersion
        guard slots.newest?.version != published else { return (slots, try slots.currentForWriting(path: store.path), bytes) }
        slots = store.checked(slots)
        // A deferred commit's record overwrites the record of the group's
        // previous member, the published version: a writer that died between
        // that record and its publication left the published version without
        // a record. The published version being a member of the record's
        // group (above its durable base) shows this session saw the group
        // written: no power loss since, and a kill loses no write. Others may
        // have read its versions: build on its last record, never fall back
        // to the durable base (that would reuse version numbers others saw
        // and free pages their pins still read). A stale unsealed record a
        // first opener rejected stays rejected: it published the durable base.
        if published != 0, let newest = slots.newest, newest.unsealed,
           newest.version > published, newest.durableBase < published {
            slots = slots.acceptingUnsealedNewest(store.io)
        }
        let base = try slots.currentForWriting(path: store.path)
        if base.version != published { lockFile.publish(version: base.version) }
        return (slots, base, bytes)
    }

    // MARK: trees

    /// The tree called `name`; created (empty) when missing if `create`.
    public func tree(_ name: String, create: Bool = true) throws(FirnError) -> WriteTree? {
        try checkActive()
        if let tree = trees[name] { return WriteTree(name: name, tree: tree, transaction: self) }
        let key = try Self.treeKey(name, geometry: store.geometry)
        var tree: MutableTree? = nil
        if !dropped.contains(name), let value = try located({ () throws(FirnError) in
            try withBytes(key) { (k) throws(FirnError) in try catalog.get(k) }
        }) {
            guard case let .inline(bytes) = value, let entry = CatalogEntry.decode(bytes) else {
                throw FirnError.corrupt(path: store.path, page: base.catalogRoot.page, version: baseVersion,
                                        detail: "catalog entry for tree \"\(name)\" is malformed")
            }
            // Every entry takes bytes of a page: a count beyond the file's
            // size is damage (and would overflow as entries are added).
            let fileBytes = base.logicalPageCount.multipliedReportingOverflow(by: UInt64(store.geometry.pageSize))
            guard !fileBytes.overflow, entry.count <= fileBytes.partialValue else {
                throw FirnError.corrupt(path: store.path, page: base.catalogRoot.page, version: baseVersion,
                                        detail: "catalog entry for tree \"\(name)\" counts \(entry.count) entries, more than the file's bytes")
            }
            tree = MutableTree(root: entry.root, count: entry.count, context: context, churn: .branches)
        } else if create {
            tree = MutableTree(root: .none, count: 0, context: context, churn: .branches)
            created.insert(name)
        }
        guard let tree else { return nil }
        trees[name] = tree
        return WriteTree(name: name, tree: tree, transaction: self)
    }

    /// Names of the trees as this transaction sees them.
    public func treeNames() throws(FirnError) -> [String] {
        try checkActive()
        var names = Set<String>()
        var cursor = TreeCursor(source: try context.source, root: catalog.root)
        try located { () throws(FirnError) in
            try cursor.first()
            while cursor.isValid {
                names.insert(try Snapshot.treeName(cursor, geometry: store.geometry))
                try cursor.next()
            }
        }
        names.subtract(dropped)
        names.formUnion(trees.keys)
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Deletes a tree and all its entries; false when there was none.
    /// Handles to the dropped tree refuse further use.
    @discardableResult
    public func dropTree(_ name: String) throws(FirnError) -> Bool {
        guard let tree = try tree(name, create: false) else { return false }
        try located { () throws(FirnError) in try tree.tree.removeAll() }
        trees[name] = nil
        // A fresh tree leaves `dropped` as it was: the base version's tree,
        // if there was one, is already marked dropped (it had to be, for a
        // fresh tree of that name to exist).
        if created.remove(name) == nil { dropped.insert(name) }
        return true
    }

    /// True while `tree` is the tree this transaction holds under `name`
    /// (not dropped, not replaced by a new tree of the same name).
    func isCurrent(_ tree: MutableTree, name: String) -> Bool { trees[name] === tree }

    // MARK: ending

    /// Makes the changes visible and, unless `durability` is `.deferred`,
    /// durable; returns the new version (the base version when nothing
    /// changed: no commit is made then).
    ///
    /// `.deferred` writes the pages and an unsealed record without a sync
    /// and publishes the version: this process and others on the host read
    /// it at once, but a power loss before the group's durability point
    /// (`Store.sync()`, or any durable commit after it) loses the whole
    /// group, never part of it. `Store.durableVersion` and
    /// `waitForDurable(version:timeout:)` tell when it is durable.
    @discardableResult
    public func commit(durability: CommitDurability = .durable) throws(FirnError) -> UInt64 {
        try checkActive()
        // The distance field holds 31 bits: a group that would outgrow it
        // is made durable by this commit instead.
        let deferred = durability == .deferred && version - durableBase < CommitRecord.maximumDistance
        let changedTrees = trees.filter { $0.value.changed || created.contains($0.key) }
        if changedTrees.isEmpty && dropped.isEmpty {
            abort()
            return baseVersion
        }
        let record: CommitRecord
        do {
            for (name, tree) in changedTrees.sorted(by: { $0.key < $1.key }) {
                let root = try tree.write()
                try withBytes(CatalogEntry(root: root, count: tree.count).encoded()) { (entry) throws(FirnError) in
                    try catalog.put(Array(name.utf8), .inline(entry))
                }
            }
            // A dropped name that was created again was just rewritten above.
            for name in dropped.sorted() where trees[name] == nil { try catalog.delete(Array(name.utf8)) }
            let catalogRoot = try catalog.write()
            let timestamp = wallClockNanoseconds()
            let (spaceRoot, _) = try ledger.settle(timestamp: timestamp, catalogRoot: catalogRoot)
            try context.flush()
            // Two-phase: every page of the new version is durable before the
            // record points at it. Single-sync (`.full`) leaves that order to
            // the open-time check, which rejects a record whose pages are not all there.
            if store.options.durability == .twoPhase && !deferred { try store.io.sync() }
            record = CommitRecord(
                pageSize: UInt32(store.geometry.pageSize), version: version, timestampNanoseconds: timestamp,
                logicalPageCount: context.allocator.logicalPageCount, catalogRoot: catalogRoot, spaceRoot: spaceRoot,
                bytesWritten: context.bytesWritten + UInt64(CommitRecord.size),
                freePages: ledger.freeCount, retiredPages: ledger.retiredCount,
                unsealed: deferred, distance: version - durableBase)
        } catch {
            abort()
            throw error.located(in: store.path, version: version)
        }
        // The record, into the slot that does not hold the last durable
        // version, then the one sync that makes pages and record durable
        // together — with every deferred commit before it, whose pages and
        // records were written to the same file earlier.
        let slotOffset = UInt64(targetSlot) * UInt64(store.geometry.pageSize)
        do {
            try store.writeRecord(record.encoded(), at: slotOffset, replacing: overwrittenSlot,
                                  sync: store.options.durability != .none && !deferred)
        } catch {
            abort()
            throw error
        }
        // `.none` skips the sync: its commits are not durable, and no
        // durable version is claimed for them.
        lockFile.publish(version: version, durable: !deferred && store.options.durability != .none)
        let runPages = context.allocator.runAllocations
        store.runHint.withLock { $0.record(runPages) }
        let written = WrittenNodes(version: version, trees: [catalog, ledger.tree] + Array(trees.values))
        store.writtenNodes.withLock { $0 = written }
        finish()
        return version
    }

    /// Discards the changes. Pages written so far were free and stay free.
    public func abort() {
        guard !finished else { return }
        finish()
    }

    private func finish() {
        finished = true
        lockFile.unlockWriter(lease)
        store.endUse()
    }

    // MARK: helpers

    func checkActive() throws(FirnError) {
        if finished { throw FirnError.misuse("\(store.path): the write transaction has ended") }
        if let beginThread, pthread_equal(beginThread, pthread_self()) == 0 {
            // Handed over: the thread that began it may now wait for the
            // lock again without that being taken for a self-deadlock.
            self.beginThread = nil
            lockFile.writerMovedThread()
        }
    }

    func located<R>(_ body: () throws(FirnError) -> R) throws(FirnError) -> R {
        do { return try body() } catch { throw error.located(in: store.path, version: baseVersion) }
    }

    var pageSource: PageSource {
        get throws(FirnError) { try context.source }
    }

    func writeOverflow(_ value: [UInt8]) throws(FirnError) -> PageRef { try context.writeOverflow(value) }

    static func treeKey(_ name: String, geometry: PageGeometry) throws(FirnError) -> [UInt8] {
        let key = Array(name.utf8)
        guard !key.isEmpty, key.count <= geometry.maxKeyLength else {
            throw FirnError.invalidArgument(
                "tree name must be 1 to \(geometry.maxKeyLength) bytes of UTF-8 (got \(key.count))")
        }
        return key
    }
}

/// Whether a commit is durable when it returns.
public enum CommitDurability: Sendable, Equatable {
    /// As the store's `Durability` says (normally: synced before `commit` returns).
    case durable
    /// Written and published without a sync, unsealed: durable with the
    /// next durability point (`Store.sync()` or a durable commit), together
    /// with every other deferred commit since the last one (FORMAT.md 8.1).
    case deferred
}

/// A named tree inside the write transaction.
public struct WriteTree {
    public let name: String
    let tree: MutableTree
    let transaction: WriteTransaction

    public var count: UInt64 { tree.count }

    /// The transaction is active and this handle's tree was not dropped:
    /// changes through a dropped tree's handle would be lost, and its
    /// overflow pages leaked.
    private func checkUsable() throws(FirnError) {
        try transaction.checkActive()
        guard transaction.isCurrent(tree, name: name) else {
            throw FirnError.misuse("\(transaction.store.path): tree \"\(name)\" was dropped in this transaction")
        }
    }

    public func get(_ key: [UInt8]) throws(FirnError) -> [UInt8]? {
        try checkUsable()
        return try transaction.located { () throws(FirnError) -> [UInt8]? in
            guard let value = try withBytes(key, { (k) throws(FirnError) in try tree.get(k) }) else { return nil }
            return try tree.materialize(value)
        }
    }

    /// Stores `value` under `key`; true when the key is new.
    @discardableResult
    public func put(_ key: [UInt8], _ value: [UInt8]) throws(FirnError) -> Bool {
        try checkUsable()
        let geometry = transaction.store.geometry
        guard key.count <= geometry.maxKeyLength else {
            throw FirnError.invalidArgument("key of \(key.count) bytes is longer than the limit of \(geometry.maxKeyLength)")
        }
        return try transaction.located { () throws(FirnError) in
            if geometry.isInline(keyLength: key.count, valueLength: value.count) {
                return try withBytes(value) { (bytes) throws(FirnError) in try tree.put(key, .inline(bytes)) }
            }
            // Large values go to an overflow chain now; the leaf keeps its head.
            let head = try transaction.writeOverflow(value)
            return try tree.put(key, .overflow(head, length: UInt64(value.count)))
        }
    }

    /// Removes `key`; false when it was absent.
    @discardableResult
    public func delete(_ key: [UInt8]) throws(FirnError) -> Bool {
        try checkUsable()
        return try transaction.located { () throws(FirnError) in try tree.delete(key) }
    }

    /// A cursor over the tree as this transaction sees it; valid until the tree changes.
    public func cursor() throws(FirnError) -> Cursor {
        try checkUsable()
        return Cursor(TreeCursor(source: try transaction.pageSource, root: tree.root), owner: transaction, path: transaction.store.path)
    }
}
