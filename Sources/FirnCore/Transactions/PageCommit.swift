/// The copy-on-write half of a write transaction: the trees as B+ trees
/// over the base checkpoint's pages, changed in memory, written bottom-up
/// at commit with the space ledger and a commit record (FORMAT.md 8). Every
/// commit without a log goes this way, and so does every checkpoint of a
/// log (the frames since the last one replayed into it first).
final class PageCommit {
    let store: Store
    /// The version this commit makes.
    let version: UInt64
    /// The checkpoint record whose trees it changes.
    let base: CommitRecord
    let context: WriteContext
    let ledger: SpaceLedger
    let catalog: MutableTree
    /// The trees opened, by name: loaded from the base, or fresh (created
    /// here, possibly after a drop). A name with no entry is as the base
    /// has it, unless in `dropped`.
    private(set) var trees: [String: MutableTree] = [:]
    /// Names whose tree in `trees` is fresh: written at commit even when empty.
    private var created: Set<String> = []
    /// Names whose base tree was dropped: its catalog entry goes at commit
    /// unless `trees` holds a fresh tree of that name by then.
    private var dropped: Set<String> = []
    /// The slot this commit overwrites, as it was: restored if the commit
    /// record cannot be made durable.
    let overwrittenSlot: [UInt8]
    /// The slot this commit's record goes into: the one not holding `durableBase`.
    let targetSlot: Int
    /// The last durable version: the base itself, or, when the base is an
    /// unsealed member of an open group, the version the group builds on.
    let durableBase: UInt64

    /// Builds on checkpoint `base` as version `version` (base + 1, or one
    /// past the log's last frame when the base made a log region).
    init(store: Store, lockFile: LockFile, slots: CommitSlots, base: CommitRecord, version: UInt64,
         slotBytes: [[UInt8]]) throws(FirnError) {
        self.store = store
        self.base = base
        self.version = version
        (targetSlot, durableBase) = slots.slotForCommit(on: base)
        let pageSize = store.geometry.pageSize
        overwrittenSlot = slotBytes[targetSlot]
        let fileSize = try store.io.size()
        let map = try store.mapCovering(pages: base.logicalPageCount, version: base.version, fileSize: fileSize)
        // Checked in full: a page this commit copies or builds on is
        // refused when damaged, never carried into the new version. Its
        // own overflow pages (read back) are born in `version`.
        let source = PageSource(map: map, pageSize: pageSize, pageLimit: base.logicalPageCount, checkedVersion: version)
        let allocator = PageAllocator(
            pageSize: pageSize, logicalPageCount: base.logicalPageCount, fileSize: fileSize, io: store.io,
            runHint: store.runHint.withLock { $0.longest })
        context = WriteContext(
            source: source, geometry: store.geometry, version: version, io: store.io, allocator: allocator,
            remap: { [unowned store] (pages) throws(FirnError) in try store.mapCovering(pages: pages, version: version) })
        let reuseCheck = ReuseCheck(path: store.path, base: base, map: map, io: store.io)
        context.reuseCheck = reuseCheck
        // Every page the ledger offers (its free list's batches, the pages
        // reclaimed below) is checked as it is read, before this commit
        // grows or writes anything: a refusal leaves the file as it was.
        allocator.checkOffered = { (page) throws(FirnError) in try reuseCheck.check(page, retired: []) }
        // Taken in any case: a transaction that aborts leaves none, and one
        // built on another version (another process committed) uses none.
        // Frames since the checkpoint change no page, so its nodes serve.
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
        let baseVersion = version - 1
        let readerPins = lockFile.livePinnedVersions()
        var pins = readerPins
        var held = [durableBase]
        if let durable = slots.record(version: durableBase) { held.append(durable.durableBase) }
        for version in held where version >= 1 && version < baseVersion - 1 && !pins.contains(version) {
            pins.append(version)
        }
        pins.sort()
        do {
            try ledger.reclaim(baseVersion: baseVersion, livePins: pins, readerPins: readerPins, previousDeath: base.version)
            if pins.isEmpty { allocator.freePagesAtStart = ledger.freeCount }
        } catch {
            throw error.located(in: store.path, version: baseVersion)
        }
    }

    // MARK: trees

    /// The tree called `name`; created (empty) when missing if `create`.
    func tree(_ name: String, create: Bool) throws(FirnError) -> MutableTree? {
        if let tree = trees[name] { return tree }
        let key = try WriteTransaction.treeKey(name, geometry: store.geometry)
        var tree: MutableTree? = nil
        if !dropped.contains(name), let value = try withBytes(key, { (k) throws(FirnError) in try catalog.get(k) }) {
            guard case let .inline(bytes) = value, let entry = CatalogEntry.decode(bytes) else {
                throw FirnError.corrupt(path: store.path, page: base.catalogRoot.page, version: base.version,
                                        detail: "catalog entry for tree \"\(name)\" is malformed")
            }
            // Every entry takes bytes of a page: a count beyond the file's
            // size is damage (and would overflow as entries are added).
            let fileBytes = base.logicalPageCount.multipliedReportingOverflow(by: UInt64(store.geometry.pageSize))
            guard !fileBytes.overflow, entry.count <= fileBytes.partialValue else {
                throw FirnError.corrupt(path: store.path, page: base.catalogRoot.page, version: base.version,
                                        detail: "catalog entry for tree \"\(name)\" counts \(entry.count) entries, more than the file's bytes")
            }
            tree = MutableTree(root: entry.root, count: entry.count, context: context, churn: .branches)
        } else if create {
            tree = MutableTree(root: .none, count: 0, context: context, churn: .branches)
            created.insert(name)
        }
        if let tree { trees[name] = tree }
        return tree
    }

    /// Names of the trees as this commit sees them.
    func treeNames() throws(FirnError) -> [String] {
        var names = Set<String>()
        var cursor = TreeCursor(source: try context.source, root: catalog.root)
        try cursor.first()
        while cursor.isValid {
            names.insert(try Snapshot.treeName(cursor, geometry: store.geometry))
            try cursor.next()
        }
        names.subtract(dropped)
        names.formUnion(trees.keys)
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Deletes a tree and all its entries; false when there was none.
    @discardableResult
    func dropTree(_ name: String) throws(FirnError) -> Bool {
        guard let tree = try tree(name, create: false) else { return false }
        try tree.removeAll()
        trees[name] = nil
        // A fresh tree leaves `dropped` as it was: the base version's tree,
        // if there was one, is already marked dropped (it had to be, for a
        // fresh tree of that name to exist).
        if created.remove(name) == nil { dropped.insert(name) }
        return true
    }

    /// True while `tree` is the tree held under `name`.
    func isCurrent(_ tree: MutableTree, name: String) -> Bool { trees[name] === tree }

    /// Whether anything would be written.
    var hasChanges: Bool {
        !dropped.isEmpty || trees.contains { $0.value.changed || created.contains($0.key) }
    }

    /// Stores `value` in `tree`: inline when it fits a leaf, else in an
    /// overflow chain written now (the leaf keeps its head).
    @discardableResult
    func put(_ tree: MutableTree, _ key: [UInt8], _ value: [UInt8]) throws(FirnError) -> Bool {
        try withBytes(key) { (k) throws(FirnError) in
            try withBytes(value) { (v) throws(FirnError) in try put(tree, k, v) }
        }
    }

    /// `put` of bytes held elsewhere (a commit log's replay puts its
    /// entries' bytes where they lie, without a copy of each).
    @discardableResult
    func put(_ tree: MutableTree, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FirnError) -> Bool {
        if store.geometry.isInline(keyLength: key.count, valueLength: value.count) {
            return try tree.put(key, .inline(value))
        }
        let head = try context.writeOverflow(value)
        return try tree.put(key, .overflow(head, length: UInt64(value.count)))
    }

    // MARK: writing

    /// Writes the changed trees, the catalog and the space tree, and
    /// returns the commit record to write (not yet written). With
    /// `logRegionPages`, the checkpoint makes a commit log region of that
    /// many pages; `retiring` is the base's region, whose pages leave use.
    func write(deferred: Bool, logRegionPages: UInt32 = 0, retiring oldRegion: LogRegion? = nil) throws(FirnError) -> CommitRecord {
        // The region first, while pages freed together are still together.
        let regionStart = logRegionPages > 0 ? try context.allocator.allocateContiguous(Int(logRegionPages)) : 0
        // The region's pages no version has used yet (the file grew for
        // them) are reserved but unwritten space: zeros written now, with
        // the checkpoint, make each frame's write an overwrite. On ext4 the
        // first write into a reserved block makes the fdatasync after it
        // commit the journal (measured: 146 against 86 µs per page write
        // and sync), and frames take new pages one commit at a time.
        if logRegionPages > 0 {
            let end = regionStart + UInt64(logRegionPages)
            try context.writeZeros(pages: min(max(regionStart, base.logicalPageCount), end)..<end)
        }
        if let oldRegion {
            for page in oldRegion.startPage..<oldRegion.startPage + oldRegion.pageCount {
                context.release(page: page, birth: oldRegion.epoch)
            }
            // What finds the region and its checkpoint once the base has
            // left the slots, while a frame of it is pinned (FORMAT.md 7).
            if let entry = LogEpochRecord(base), entry.region == oldRegion {
                try ledger.recordRetiredLog(of: entry)
            }
        }
        let changedTrees = trees.filter { $0.value.changed || created.contains($0.key) }
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
        // The new region's pages that come from the ledger: frames will
        // write them, so they pass the checks every written page passes,
        // now that the pages this commit replaces are all known.
        let reusedRegionEnd = min(regionStart + UInt64(logRegionPages), base.logicalPageCount)
        if logRegionPages > 0 && regionStart < reusedRegionEnd {
            for page in regionStart..<reusedRegionEnd { try context.checkReusable(page) }
        }
        try context.flush()
        var record = CommitRecord(
            pageSize: UInt32(store.geometry.pageSize), version: version, timestampNanoseconds: timestamp,
            logicalPageCount: context.allocator.logicalPageCount, catalogRoot: catalogRoot, spaceRoot: spaceRoot,
            bytesWritten: context.bytesWritten + UInt64(logRegionPages > 0 ? CommitRecord.maximumSize : CommitRecord.size),
            freePages: ledger.freeCount, retiredPages: ledger.retiredCount,
            unsealed: deferred, distance: version - durableBase)
        record.logRegionStart = regionStart
        record.logRegionPages = logRegionPages
        return record
    }

    /// What the next transaction keeps of this commit once its record is
    /// written: the allocator's run lengths and the nodes written.
    func keepForNextCommit() {
        let runPages = context.allocator.runAllocations
        store.runHint.withLock { $0.record(runPages) }
        let written = WrittenNodes(version: version, trees: [catalog, ledger.tree] + Array(trees.values))
        store.writtenNodes.withLock { $0 = written }
    }
}
