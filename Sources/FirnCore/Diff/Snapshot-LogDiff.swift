/// Version diffs where either version stands between checkpoints: the
/// checkpoints' trees are diffed as always (shared subtrees skipped), and
/// the keys the frames of either version touched are looked up in both, so
/// the cost still follows the change: the frames hold only changed keys.
extension Snapshot {
    /// `changes(in:since:_:)` when either snapshot has log frames.
    func logChanges(in name: String, since base: Snapshot, _ body: (Change) throws(FirnError) -> Bool) throws(FirnError) -> DiffStats {
        let old = try base.tree(name)
        let new = try tree(name)
        // Each side: its checkpoint tree unless a frame reset it, and the
        // keys its frames touched; a key in neither frame list reads as its
        // checkpoint has it, so the checkpoints' diff reports it right.
        let oldRoot = old.map { $0.log?.showsBase == false ? PageRef.none : $0.entry.root } ?? .none
        let newRoot = new.map { $0.log?.showsBase == false ? PageRef.none : $0.entry.root } ?? .none
        let logKeys = Self.union(old?.log?.entries ?? [], new?.log?.entries ?? [])
        var stats = DiffStats()
        var lookupPages = 0
        let oldDepth = try Self.depth(oldRoot, in: base), newDepth = try Self.depth(newRoot, in: self)
        /// Reports what `key` is on each side; false when `body` stopped.
        func evaluate(_ key: UnsafeRawBufferPointer) throws(FirnError) -> Bool {
            let before = try old?.storedValue(key)
            let after = try new?.storedValue(key)
            if old?.log?.entry(for: key) == nil { lookupPages += oldDepth }
            if new?.log?.entry(for: key) == nil { lookupPages += newDepth }
            let change: Change
            switch (before, after) {
            case (nil, nil): return true
            case let (nil, value?): change = .inserted(key: key, value: ValueView(stored: value, snapshot: self))
            case let (value?, nil): change = .deleted(key: key, old: ValueView(stored: value, snapshot: base))
            case let (was?, now?):
                if try TreeDiff.sameValue(was, in: base, now, in: self, pagesRead: &lookupPages) { return true }
                change = .changed(key: key, old: ValueView(stored: was, snapshot: base), new: ValueView(stored: now, snapshot: self))
            }
            stats.changes += 1
            return try body(change)
        }
        var index = 0
        var diff = TreeDiff(older: base, root: oldRoot, newer: self, root: newRoot)
        let checkpointStats = try diff.run { (change) throws(FirnError) -> Bool in
            while index < logKeys.count, compareBytes(logKeys[index], change.key) < 0 {
                guard try evaluate(logKeys[index]) else { return false }
                index += 1
            }
            if index < logKeys.count, compareBytes(logKeys[index], change.key) == 0 {
                index += 1
                return try evaluate(change.key)
            }
            stats.changes += 1
            return try body(change)
        }
        stats.completed = checkpointStats.completed
        while stats.completed, index < logKeys.count {
            stats.completed = try evaluate(logKeys[index])
            index += 1
        }
        stats.pagesRead = checkpointStats.pagesRead + lookupPages
        stats.subtreesSkipped = checkpointStats.subtreesSkipped
        stats.entriesRead = checkpointStats.entriesRead + logKeys.count
        return stats
    }

    /// `treeChanges(since:_:)` when either snapshot has log frames: the
    /// catalogs compared by name. A tree is changed when its entry differs
    /// or a frame between the versions touched it (in one epoch: a frame
    /// after the older version; across epochs: any frame of either).
    func logTreeChanges(since base: Snapshot, _ body: (TreeChange) throws(FirnError) -> Bool) throws(FirnError) -> DiffStats {
        let before = try base.catalog(), after = try catalog()
        var stats = DiffStats()
        var i = 0, j = 0
        func report(_ change: TreeChange) throws(FirnError) -> Bool {
            stats.changes += 1
            stats.completed = try body(change)
            return stats.completed
        }
        while i < before.count || j < after.count {
            let order: Int
            if i == before.count { order = 1 } else if j == after.count { order = -1 } else {
                order = Array(before[i].name.utf8).lexicographicallyPrecedes(Array(after[j].name.utf8)) ? -1
                    : before[i].name == after[j].name ? 0 : 1
            }
            if order < 0 {
                guard try report(.dropped(name: before[i].name, entry: before[i].entry)) else { return stats }
                i += 1
            } else if order > 0 {
                guard try report(.created(name: after[j].name, entry: after[j].entry)) else { return stats }
                j += 1
            } else {
                let name = after[j].name
                if before[i].entry != after[j].entry || logTouched(name, since: base) {
                    guard try report(.changed(name: name, old: before[i].entry, new: after[j].entry)) else { return stats }
                }
                i += 1
                j += 1
            }
        }
        return stats
    }

    /// Whether a frame between `base` and this version may have changed `tree`.
    private func logTouched(_ tree: String, since base: Snapshot) -> Bool {
        if base.info.version == info.version {
            // One epoch: the frames between the two versions.
            switch (base.log, log) {
            case (nil, nil): return false
            case let (older?, nil): return older.touched(tree, after: info.version)
            case let (nil, newer?): return newer.touched(tree, after: base.info.version)
            case let (a?, b?): return a.version < b.version ? b.touched(tree, after: a.version) : a.touched(tree, after: b.version)
            }
        }
        return base.log?.trees[tree] != nil || log?.trees[tree] != nil
    }

    /// The keys of two entry lists, sorted, each once.
    private static func union(_ a: [LogEntry], _ b: [LogEntry]) -> [UnsafeRawBufferPointer] {
        var out: [UnsafeRawBufferPointer] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count { out.append(a[i].key); i += 1; continue }
            if i == a.count { out.append(b[j].key); j += 1; continue }
            let order = compareBytes(a[i].key, b[j].key)
            if order <= 0 { out.append(a[i].key); i += 1; if order == 0 { j += 1 } } else { out.append(b[j].key); j += 1 }
        }
        return out
    }

    private static func depth(_ root: PageRef, in snapshot: Snapshot) throws(FirnError) -> Int {
        root.isNone ? 0 : try snapshot.source.view(root).level + 1
    }
}
