
/// A read-only view of one version. Pinned in the reader table (unless the
/// store is read-only without a usable lock file), so writers never reuse
/// its pages; values read from it point into the map and stay valid while
/// it lives. Thread-safe: share it freely.
public final class Snapshot: @unchecked Sendable {
    package let store: Store
    /// The version's checkpoint: for a version between checkpoints, the
    /// commit whose trees the log's frames stand over.
    package let info: VersionInfo
    let source: PageSource
    private let pinState: Locked<PinSlot?>
    /// The log's frames up to this version, for a version between
    /// checkpoints; nil when it is a checkpoint (a commit record's version).
    let log: LogOverlayVersion?

    public var version: UInt64 { log?.version ?? info.version }
    /// The checkpoint whose commit log holds this version; nil when the
    /// version is a checkpoint (a commit record's) itself.
    package var logCheckpointVersion: UInt64? { log == nil ? nil : info.version }
    /// False when no reader-table slot protects this snapshot (read-only
    /// store without a lock file): a writer could then reuse its pages.
    public let isPinned: Bool

    init(store: Store, info: VersionInfo, source: PageSource, pin: PinSlot?, log: LogOverlayVersion? = nil) {
        self.store = store
        self.info = info
        self.log = log?.isCheckpoint == true ? nil : log
        self.source = source
        pinState = Locked(pin)
        isPinned = pin != nil
        // The pin keeps the store's lock file open past `Store.close()`.
        if pin != nil { store.addUse() }
    }

    deinit { close() }

    var pin: PinSlot? { pinState.withLock { $0 } }

    /// The reader-table slot holding this snapshot's pin (`PinRecord.slot`),
    /// nil once closed or when unpinned: lets a holder tell its own pin
    /// apart in `LockFile.pins()`.
    package var pinSlotIndex: Int? { pin?.index }

    /// Releases the pin; reading afterwards is undefined for pages a writer
    /// reused. Readable until then, even after the store was closed.
    public func close() {
        if let pin = pinState.withLock({ s -> PinSlot? in defer { s = nil }; return s }) {
            store.lockFile?.releasePin(pin)
            store.endUse()
        }
    }

    /// Gives up ownership of the pin without releasing it (it moved to
    /// another snapshot, which now keeps the store open in our place).
    func detachPin() {
        if pinState.withLock({ s -> Bool in defer { s = nil }; return s != nil }) {
            store.endUse()
        }
    }

    /// Names who holds the pin, for `firn pins`: the holder's thread (a
    /// queue- or actor-bound instance is not the thread that happened to
    /// claim the slot; 0 = none in particular) and a label.
    package func setHolder(threadID: Int64, label: String) {
        if let pin { store.lockFile?.setPinHolder(pin, threadID: threadID, label: label) }
    }

    /// Adds to the frozen-object count shown for this snapshot's pin.
    package func addFrozenObjects(_ delta: Int64) {
        frozenObjectCounter?.add(delta)
    }

    /// The pin's frozen-object count as a handle (nil when unpinned): valid
    /// while this snapshot keeps its pin.
    package var frozenObjectCounter: FrozenObjectCounter? {
        guard let pin, let lockFile = store.lockFile else { return nil }
        return lockFile.frozenObjectCounter(pin)
    }

    // MARK: trees

    var catalogCursor: TreeCursor { TreeCursor(source: source, rootRef: info.catalogRoot) }

    /// The names of the version's trees, in byte order.
    public func treeNames() throws(FirnError) -> [String] {
        try catalog().map(\.name)
    }

    /// Every tree with its catalog entry. A catalog key that is not a tree
    /// name (empty, too long, not UTF-8) fails with `.corrupt` naming its
    /// page: tools copying the version must not skip or rename a tree.
    package func catalog() throws(FirnError) -> [(name: String, entry: CatalogEntry)] {
        var cursor = catalogCursor
        var out: [(String, CatalogEntry)] = []
        do {
            try cursor.first()
            while cursor.isValid {
                let entry = try catalogEntry(cursor)
                out.append((try Self.treeName(cursor, geometry: store.geometry, root: entry.root), entry))
                try cursor.next()
            }
        } catch { throw error.located(in: store.path, version: version).inTree("(catalog)") }
        guard let log, !log.trees.isEmpty else { return out }
        // Between checkpoints: the trees the frames touched, as they left them.
        var merged: [(name: String, entry: CatalogEntry)] = []
        for (name, entry) in out {
            guard let state = log.trees[name] else {
                merged.append((name, entry))
                continue
            }
            if state.exists {
                merged.append((name, CatalogEntry(root: state.showsCheckpoint ? entry.root : .none, count: state.count)))
            }
        }
        let known = Set(out.map { $0.0 })
        for (name, state) in log.trees where state.exists && !known.contains(name) {
            merged.append((name, CatalogEntry(root: .none, count: state.count)))
        }
        merged.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        return merged
    }

    /// The tree name under a catalog cursor; `.corrupt` naming the catalog
    /// page (and the tree's root page, when known) when the key is not one.
    static func treeName(_ cursor: TreeCursor, geometry: PageGeometry, root: PageRef? = nil) throws(FirnError) -> String {
        let decoded = try cursor.withKey { key -> (Result<String, CatalogEntry.NameDefect>, String) in
            (CatalogEntry.name(key, geometry: geometry), CatalogEntry.describe(key))
        }
        guard let (result, key) = decoded else {
            throw FirnError.corrupt(path: "", page: cursor.currentPage, version: nil, detail: "catalog cursor lost its entry")
        }
        switch result {
        case let .success(name): return name
        case let .failure(defect):
            let tree = root.map { $0.isNone ? " (an empty tree)" : " (the tree's root is page \($0.page))" } ?? ""
            throw FirnError.corrupt(path: "", page: cursor.currentPage, version: nil,
                                    detail: "catalog key \(key)\(tree): \(defect)")
        }
    }

    /// The tree called `name`, or nil when the version has none.
    public func tree(_ name: String) throws(FirnError) -> TreeReader? {
        let state = log?.trees[name]
        if let state, !state.exists { return nil }
        func lookup() throws(FirnError) -> CatalogEntry? {
            var cursor = catalogCursor
            do {
                try cursor.seek(Array(name.utf8))
                guard cursor.isValid, try cursor.key == Array(name.utf8) else { return nil }
                return try catalogEntry(cursor)
            } catch { throw error.located(in: store.path, version: version) }
        }
        let checkpointEntry: CatalogEntry?
        if let log {
            checkpointEntry = try log.checkpointCatalogEntry(name, lookup: lookup)
        } else {
            checkpointEntry = try lookup()
        }
        guard let log, let state else {
            return checkpointEntry.map { TreeReader(name: name, entry: $0, snapshot: self) }
        }
        // Between checkpoints, a tree the frames touched: their entries over
        // the checkpoint's tree, unless a frame dropped or created it anew.
        let root = state.showsCheckpoint ? checkpointEntry?.root ?? .none : .none
        return TreeReader(
            name: name, entry: CatalogEntry(root: root, count: state.count), snapshot: self,
            log: TreeReader.LogLayer(link: log, tree: name, showsBase: state.showsCheckpoint))
    }

    /// A cursor over the tree rooted at `root` in this version: a named
    /// tree's catalog root, or the catalog's or space tree's own root.
    /// `tree` names it in the error a damaged page raises.
    package func cursor(root: PageRef, tree: String? = nil) -> Cursor {
        Cursor(TreeCursor(source: source, rootRef: root), owner: self, path: store.path, tree: tree, version: version)
    }

    private func catalogEntry(_ cursor: TreeCursor) throws(FirnError) -> CatalogEntry {
        guard case let .inline(bytes)? = try cursor.storedValue(), let entry = CatalogEntry.decode(bytes) else {
            throw FirnError.corrupt(path: store.path, page: info.catalogRoot.page, version: version,
                                    detail: "catalog entry is not \(CatalogEntry.size) inline bytes")
        }
        return entry
    }

    // MARK: space

    /// The commit history kept in this version's space tree (oldest first).
    package func history() throws(FirnError) -> [HistoryRecord] {
        guard let spaceRoot = info.spaceRoot else { return [] }
        var cursor = TreeCursor(source: source, rootRef: spaceRoot)
        var out: [HistoryRecord] = []
        do {
            try cursor.seek([SpaceKey.history])
            while cursor.isValid, case .history? = try cursor.withKey({ SpaceKey.decode($0) }) {
                if case let .inline(bytes)? = try cursor.storedValue(), let record = HistoryRecord.decode(bytes) {
                    out.append(record)
                }
                try cursor.next()
            }
        } catch { throw error.located(in: store.path, version: version) }
        return out
    }

    func historyRecord(version wanted: UInt64) throws(FirnError) -> HistoryRecord? {
        guard let spaceRoot = info.spaceRoot else { return nil }
        var cursor = TreeCursor(source: source, rootRef: spaceRoot)
        try cursor.seek(SpaceKey.historyEntry(wanted))
        guard cursor.isValid, try cursor.key == SpaceKey.historyEntry(wanted),
              case let .inline(bytes)? = try cursor.storedValue() else { return nil }
        return HistoryRecord.decode(bytes)
    }

    /// The epoch entry of the retired log region that holds frame
    /// `wanted` (FORMAT.md 7): the entry `E`(end) with the smallest end
    /// past it, when its epoch is at or below it, with that end (the
    /// checkpoint that retired the region). Nil when there is none.
    /// A malformed entry is `.corrupt`: its numbers would place reads.
    package func retiredLog(holding wanted: UInt64) throws(FirnError) -> (end: UInt64, record: LogEpochRecord)? {
        guard let spaceRoot = info.spaceRoot, wanted < UInt64.max else { return nil }
        var cursor = TreeCursor(source: source, rootRef: spaceRoot)
        do throws(FirnError) {
            try cursor.seek(SpaceKey.epochEntry(end: wanted + 1))
            guard cursor.isValid, case let .epoch(end)? = try cursor.withKey({ SpaceKey.decode($0) }) else { return nil }
            switch LogEpochRecord.validated(try cursor.storedValue(), end: end) {
            case let .success(entry): return entry.epoch <= wanted ? (end, entry) : nil
            case let .failure(defect):
                throw FirnError.corrupt(path: store.path, page: spaceRoot.page, version: version,
                                        detail: "space tree epoch entry E(\(end)) \(defect.description)")
            }
        } catch {
            throw error.located(in: store.path, version: version)
        }
    }

    /// Walks the space tree's entries in key order (free, retired, pinned,
    /// history), for accounting and verification.
    func forEachSpaceEntry(_ body: (SpaceKey.Decoded?, UnsafeRawBufferPointer, StoredValue?) throws(FirnError) -> Void) throws(FirnError) {
        guard let spaceRoot = info.spaceRoot else { return }
        var cursor = TreeCursor(source: source, rootRef: spaceRoot)
        try cursor.first()
        while cursor.isValid {
            let value = try cursor.storedValue()
            try cursor.withKey { $0 }.map { (key) throws(FirnError) in try body(SpaceKey.decode(key), key, value) }
            try cursor.next()
        }
    }
}
