/// Version diffs: what changed in a tree, or in the catalog, between two
/// readable versions. Both snapshots stay pinned while the diff runs, so
/// neither version's pages can be reused under it; subtrees the versions
/// share are skipped unread, so the cost follows the change, not the data.
extension Snapshot {
    /// Reports the keys of tree `name` that were inserted, deleted or
    /// changed between `base` and this snapshot, in key order, until `body`
    /// returns false. A version without the tree counts as an empty tree.
    ///
    /// ```swift
    /// let stats = try newer.changes(in: "users", since: older) { change in
    ///     if case let .changed(key, _, new) = change { print(Array(key), new.count) }
    ///     return true
    /// }
    /// ```
    ///
    /// `base` is usually the older version, but need not be: the changes are
    /// those that turn `base` into this snapshot. Keys and values passed to
    /// `body` point into the map and are valid during the call. A damaged
    /// page throws `FirnError.corrupt` naming it and its version, possibly
    /// after some changes were reported. (A closure that uses `try` spells
    /// out its type, `{ (change) throws(FirnError) -> Bool in … }`: Swift
    /// does not infer a typed throw for it.)
    @discardableResult
    public func changes(
        in name: String, since base: Snapshot, _ body: (Change) throws(FirnError) -> Bool
    ) throws(FirnError) -> DiffStats {
        try checkSameDatabase(base)
        do {
            if base.log != nil || log != nil {
                if base.log === log, base.info.catalogRoot == info.catalogRoot { return DiffStats() }
                return try logChanges(in: name, since: base, body)
            }
            if base.info.catalogRoot == info.catalogRoot {
                // One catalog: the tree's entry, hence the tree, is the same.
                var stats = DiffStats()
                if !info.catalogRoot.isNone { stats.subtreesSkipped = 1 }
                return stats
            }
            let (old, oldPages) = try base.catalogLookup(name)
            let (new, newPages) = try catalogLookup(name)
            var diff = TreeDiff(older: base, root: old?.root ?? .none, newer: self, root: new?.root ?? .none)
            var stats = try diff.run(body)
            stats.pagesRead += oldPages + newPages
            return stats
        } catch {
            throw error.located(in: store.path)
        }
    }

    /// The trees created, dropped or changed between `base` and this
    /// snapshot, in name order (byte order of the UTF-8 names).
    public func treeChanges(since base: Snapshot) throws(FirnError) -> [TreeChange] {
        var out: [TreeChange] = []
        try treeChanges(since: base) { change in
            out.append(change)
            return true
        }
        return out
    }

    /// Streams the trees created, dropped or changed between `base` and
    /// this snapshot, in name order, until `body` returns false. The same
    /// walk as `changes(in:since:_:)`, over the catalog.
    @discardableResult
    public func treeChanges(
        since base: Snapshot, _ body: (TreeChange) throws(FirnError) -> Bool
    ) throws(FirnError) -> DiffStats {
        try checkSameDatabase(base)
        if base.log != nil || log != nil {
            do { return try logTreeChanges(since: base, body) } catch { throw error.located(in: store.path) }
        }
        var diff = TreeDiff(older: base, root: base.info.catalogRoot, newer: self, root: info.catalogRoot)
        do {
            return try diff.run { (change) throws(FirnError) -> Bool in
                let name = String(decoding: change.key, as: UTF8.self)
                switch change {
                case let .inserted(_, value):
                    return try body(.created(name: name, entry: try Self.catalogEntry(value, name: name)))
                case let .deleted(_, old):
                    return try body(.dropped(name: name, entry: try Self.catalogEntry(old, name: name)))
                case let .changed(_, old, new):
                    return try body(.changed(
                        name: name, old: try Self.catalogEntry(old, name: name),
                        new: try Self.catalogEntry(new, name: name)))
                }
            }
        } catch {
            throw error.located(in: store.path)
        }
    }

    // MARK: helpers

    /// Refuses snapshots of different files: page references are only
    /// comparable within one file.
    private func checkSameDatabase(_ base: Snapshot) throws(FirnError) {
        if base.store === store { return }
        let mine = DataFileIdentity.of(descriptor: store.io.descriptor)
        let theirs = DataFileIdentity.of(descriptor: base.store.io.descriptor)
        guard mine.isKnown, mine == theirs, base.store.pageSize == store.pageSize else {
            throw FirnError.invalidArgument(
                "cannot diff \(store.path) (version \(version)) against \(base.store.path) (version \(base.version)): not the same database file")
        }
    }

    /// The catalog entry of tree `name` and the catalog pages read to find it.
    private func catalogLookup(_ name: String) throws(FirnError) -> (CatalogEntry?, Int) {
        let root = info.catalogRoot
        guard !root.isNone else { return (nil, 0) }
        do throws(FirnError) {
            // A lookup reads one page per level, root to leaf.
            let pages = try source.view(root).level + 1
            let stored = try withBytes(Array(name.utf8)) { (key) throws(FirnError) in
                try source.lookup(key, in: root)
            }
            guard let stored else { return (nil, pages) }
            guard case let .inline(bytes) = stored, let entry = CatalogEntry.decode(bytes) else {
                throw FirnError.corrupt(path: "", page: root.page, version: version,
                                        detail: "catalog entry for tree \"\(name)\" is not \(CatalogEntry.size) inline bytes")
            }
            return (entry, pages)
        } catch {
            throw error.located(in: "", version: version)
        }
    }

    private static func catalogEntry(_ value: ValueView, name: String) throws(FirnError) -> CatalogEntry {
        guard let bytes = value.inlineBytes, let entry = CatalogEntry.decode(bytes) else {
            throw FirnError.corrupt(path: "", page: nil, version: value.snapshot.version,
                                    detail: "catalog entry for tree \"\(name)\" is not \(CatalogEntry.size) inline bytes")
        }
        return entry
    }
}
