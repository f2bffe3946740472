/// A write transaction's changes as the commit log carries them: per tree,
/// the keys put and deleted (one entry per key in a `LogEntryTable`, sorted
/// when read in order; bytes in an arena)
/// over a base version read through a snapshot (its checkpoint and its
/// frames). Reads see the changes first, then the base. `payload()`
/// encodes them as one commit frame's payload; a frame a `LogOverlayVersion`
/// applied to the base version reads exactly as this change set does.
final class LogChangeSet {
    let base: Snapshot

    private struct TreeChanges {
        /// The base version's tree; nil when the base has none.
        var reader: TreeReader?
        /// The base version has the tree.
        var inBase: Bool { reader != nil }
        /// The tree exists now.
        var exists: Bool
        /// Dropped or created in this transaction: the base's entries are gone.
        var reset: Bool
        var count: UInt64
        var entries = LogEntryTable()
        /// Changed since the transaction began (a frame must carry it).
        var changed = false
        /// The frame names the tree (`payload()`): a drop of the base's
        /// tree, or a tree that exists after its changes. A tree created
        /// and dropped again by this transaction leaves no trace.
        var inFrame: Bool { changed && (exists || reset && inBase) }
    }
    /// Every tree this transaction looked at, changed or not (`changed`),
    /// with the base's reader: one lookup per operation.
    ///
    /// Like the transaction, a change set is driven by one thread at a time:
    /// its stored properties skip the runtime exclusivity check (a dynamic
    /// access record on every put, profiled).
    @exclusivity(unchecked) private var trees = NameTable<TreeChanges>()
    /// Holds the bytes of every entry's key and value; the link made from
    /// these changes (`LogOverlayVersion.appending`) keeps it alive.
    let arena = ByteArena()
    /// The key a caller's `get` last found absent in tree `name`
    /// (`noteAbsent`), until the next change: the put that usually follows
    /// it (the SDK's add looks its primary key up first) then skips its own
    /// lookup of the same key.
    @exclusivity(unchecked) private var knownAbsent: (name: String, key: [UInt8])?

    init(base: Snapshot) {
        self.base = base
    }

    var isEmpty: Bool { !trees.contains { $0.value.changed } }

    /// The entries a frame of these changes carries.
    var entryCount: UInt64 {
        trees.reduce(0) { total, item in
            let tree = item.value
            guard tree.changed && tree.exists else { return total }
            // A created or dropped tree's frame leaves its deletions out.
            return total + UInt64(tree.entries.count - (tree.reset ? tree.entries.deletions : 0))
        }
    }

    /// The ordering work of the trees' tables (`LogEntryTable.work`):
    /// what tests bound to show a transaction costs O(n log n).
    var orderingWork: Int { trees.reduce(0) { $0 + $1.value.entries.work } }

    /// The tree's state, from the base when this transaction has not looked at it before.
    private func state(_ name: String) throws(FirnError) -> TreeChanges {
        if let known = trees[name] { return known }
        let reader = try base.tree(name)
        let state = TreeChanges(reader: reader, exists: reader != nil, reset: false, count: reader?.count ?? 0)
        trees[name] = state
        return state
    }

    /// Puts the tree's state in the table (`state`) without holding a copy.
    private func lookAt(_ name: String) throws(FirnError) {
        if trees.contains(name) { return }
        _ = try state(name)
    }

    // MARK: reading

    /// Whether tree `name` exists as this transaction sees it.
    func exists(_ name: String) throws(FirnError) -> Bool {
        try lookAt(name)
        return trees.read(name) { $0.exists } ?? false
    }

    func count(_ name: String) throws(FirnError) -> UInt64 {
        try lookAt(name)
        return trees.read(name) { $0.count } ?? 0
    }

    /// The names of the trees as this transaction sees them, in byte order.
    func treeNames() throws(FirnError) -> [String] {
        var names = Set(try base.treeNames())
        for (name, tree) in trees {
            if tree.exists { names.insert(name) } else { names.remove(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The value under `key` in tree `name`, nil when absent (or no tree).
    func get(_ name: String, _ key: UnsafeRawBufferPointer) throws(FirnError) -> StoredValue? {
        try lookAt(name)
        // Read in place: a copy of the tree's state would retain each of its
        // table's arrays, on every get and put.
        enum Found { case noTree, entry(LogEntry), base(TreeReader?) }
        let found = trees.read(name) { (tree) -> Found in
            guard tree.exists else { return .noTree }
            if let entry = tree.entries.entry(for: key) { return .entry(entry) }
            return tree.reset ? .noTree : .base(tree.reader)
        } ?? .noTree
        switch found {
        case .noTree: return nil
        case let .entry(entry): return entry.value.map { .inline($0) }
        case let .base(reader): return try baseValue(reader, name, key)
        }
    }

    /// The value under `key` in the base version's tree `name`, read
    /// through `reader`; an error names the tree and the base version.
    private func baseValue(_ reader: TreeReader?, _ name: String, _ key: UnsafeRawBufferPointer) throws(FirnError) -> StoredValue? {
        do {
            return try reader?.storedValue(key)
        } catch {
            throw error.located(in: base.store.path, version: base.version).inTree(name)
        }
    }

    /// A walk over tree `name` as this transaction sees it; nil when it
    /// does not exist. Valid until the tree next changes.
    func cursor(_ name: String, owner: AnyObject) throws(FirnError) -> Cursor? {
        guard try state(name).exists else { return nil }
        // Sorted in place before anything else holds the table (a copy
        // held would make the sort copy it first).
        let own = try sortedEntries(name)
        let (reset, reader) = trees[name].map { ($0.reset, $0.reader) } ?? (true, nil)
        let shownReader = reset ? nil : reader
        let root = shownReader?.entry.root ?? .none
        let baseLog = shownReader?.log
        let entries = [LogEntry].mergingNewestFirst([own, baseLog?.entries ?? []])
        let merge = LogMergeCursor(
            base: TreeCursor(source: base.source, rootRef: root), entries: entries,
            showsBase: shownReader != nil && baseLog?.showsBase != false)
        return Cursor(merge, owner: owner, path: base.store.path)
    }

    /// Tree `name`'s entries in key order (sorted in place in the table).
    private func sortedEntries(_ name: String) throws(FirnError) -> [LogEntry] {
        _ = try state(name)
        var sorted: [LogEntry] = []
        trees.modify(name) { sorted = $0.entries.sorted() }
        return sorted
    }

    /// The entries a frame carries for `tree`: a created or dropped tree's
    /// deletions are of keys this transaction put and removed again.
    private static func frameEntries(_ tree: inout TreeChanges) -> [LogEntry] {
        tree.reset ? tree.entries.sortedWithoutDeletions() : tree.entries.sorted()
    }

    /// Records that `get` found `key` absent from tree `name` for a caller
    /// (not for this type's own lookups), so a put of it right after needs
    /// no second lookup.
    func noteAbsent(_ name: String, _ key: [UInt8]) {
        knownAbsent = (name, key)
    }

    /// Whether `key` in `name` is the key last noted absent; forgets it
    /// either way (the caller is about to change something).
    private func takeKnownAbsent(_ name: String, _ key: UnsafeRawBufferPointer) -> Bool {
        guard let known = knownAbsent else { return false }
        knownAbsent = nil
        return known.name == name && known.key.elementsEqual(key)
    }

    // MARK: changing

    /// Creates tree `name` empty unless it exists; true when created.
    @discardableResult
    func createTree(_ name: String) throws(FirnError) -> Bool {
        try reset(name, exists: true)
    }

    /// Drops tree `name` with its entries; false when there was none.
    @discardableResult
    func dropTree(_ name: String) throws(FirnError) -> Bool {
        try reset(name, exists: false)
    }

    /// A drop (`exists` false) or a create: the tree's entries, the base's
    /// included, are gone. False when the tree already is as asked.
    private func reset(_ name: String, exists: Bool) throws(FirnError) -> Bool {
        knownAbsent = nil
        var tree = try state(name)
        guard tree.exists != exists else { return false }
        tree.exists = exists
        tree.reset = true
        tree.count = 0
        tree.entries = LogEntryTable()
        tree.changed = true
        trees[name] = tree
        return true
    }

    /// Stores `value` under `key` in tree `name` (which must exist); true
    /// when the key is new.
    @discardableResult
    func put(_ name: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FirnError) -> Bool {
        let knownAbsent = takeKnownAbsent(name, key)
        try lookAt(name)
        // One probe of the table: the slot found says whether this
        // transaction has the key and is where the entry goes. Taken in
        // place, and no copy of the tree's state is held meanwhile: a copy
        // would make `find` copy the whole table. The base's lookup below
        // does not change the table, so the slot stays valid.
        var slot: LogEntryTable.Slot? = nil
        var showsBase = false
        var reader: TreeReader? = nil
        trees.modify(name) { tree in
            slot = tree.entries.find(key)
            showsBase = tree.exists && !tree.reset
            reader = tree.reader
        }
        guard let slot else { throw FirnError.misuse("tree \"\(name)\" left the change set during a put") }
        let existed: Bool
        if let existing = slot.existing {
            existed = existing.value != nil
        } else if knownAbsent || !showsBase {
            existed = false
        } else {
            existed = try baseValue(reader, name, key) != nil
        }
        // An empty value is an empty buffer, not nil: nil means deleted.
        let entry = LogEntry(key: arena.store(key), value: arena.store(value), version: base.version + 1)
        trees.modify(name) { tree in
            tree.entries.put(entry, at: slot)
            if !existed { tree.count += 1 }
            tree.changed = true
        }
        return !existed
    }

    /// Removes `key` from tree `name`; false when it was absent.
    @discardableResult
    func delete(_ name: String, _ key: UnsafeRawBufferPointer) throws(FirnError) -> Bool {
        knownAbsent = nil
        guard try get(name, key) != nil else { return false }
        let version = base.version + 1
        trees.modify(name) { tree in
            // In a created or dropped tree nothing of the base shows
            // through: the deletion is dropped from its frame
            // (`frameEntries`), and until then reads as absent.
            tree.entries.upsert(LogEntry(key: arena.store(key), value: nil, version: version))
            tree.count -= 1
            tree.changed = true
        }
        return true
    }

    /// Each tree this transaction changed, in name order: whether it exists
    /// now, whether it was dropped or created (the base's entries gone),
    /// and its entries (nil value: deleted).
    func forEachChangedTree(_ body: (_ name: String, _ exists: Bool, _ reset: Bool, _ entries: [LogEntry]) throws(FirnError) -> Void) throws(FirnError) {
        for name in trees.keys.sorted() {
            guard let tree = trees[name], tree.changed else { continue }
            var entries: [LogEntry] = []
            trees.modify(name) { entries = Self.frameEntries(&$0) }
            try body(name, tree.exists, tree.reset, entries)
        }
    }

    /// One tree a frame of these changes carries, as the link of the new
    /// version records it.
    struct FrameTree {
        var name: String
        var exists: Bool
        var reset: Bool
        var count: UInt64
        var entries: [LogEntry]
    }

    /// Each tree this transaction changed, as its frame carries it: what
    /// `LogOverlayVersion.appending` makes the next version's link from.
    func frameTrees() -> [FrameTree] {
        var result: [FrameTree] = []
        for name in trees.keys {
            trees.modify(name) { tree in
                guard tree.inFrame else { return }
                result.append(FrameTree(name: name, exists: tree.exists, reset: tree.reset, count: tree.count,
                                        entries: Self.frameEntries(&tree)))
            }
        }
        return result
    }

    // MARK: encoding

    /// The changes as one commit frame's payload (`LogPayload`), trees in
    /// name order: a drop where the base's tree went, a create where a new
    /// one began, then its puts and deletes in key order and its count.
    func payload() -> [UInt8] {
        // In name order; one tree (the usual frame) needs no sort.
        let framedNames = trees.filter(\.value.inFrame).map(\.key)
        let names = framedNames.count < 2 ? framedNames : framedNames.sorted()
        var ordered: [(name: String, tree: TreeChanges, entries: [LogEntry])] = []
        for name in names {
            trees.modify(name) { tree in
                let entries = Self.frameEntries(&tree)
                ordered.append((name, tree, entries))
            }
        }
        // Its size, so the bytes are allocated once.
        var size = 0
        for (name, _, entries) in ordered {
            size += LogPayload.Builder.treeOverhead(name)
            for entry in entries { size += LogPayload.Builder.operationSize(key: entry.key, value: entry.value) }
        }
        var builder = LogPayload.Builder(capacity: size)
        for (name, tree, entries) in ordered {
            if tree.reset && tree.inBase { builder.append(.dropTree(name)) }
            guard tree.exists else { continue }
            if tree.reset { builder.append(.createTree(name)) }
            for entry in entries {
                if let value = entry.value {
                    builder.appendPut(name, key: entry.key, value: value)
                } else {
                    builder.appendDelete(name, key: entry.key)
                }
            }
            builder.append(.count(tree: name, entries: tree.count))
        }
        return builder.bytes
    }
}
