/// What the commit log says of one tree at a version, against the tree its
/// checkpoint holds.
struct LogTreeState: Equatable, Sendable {
    /// False once a frame dropped the tree (and none created it again).
    var exists: Bool
    /// The version of the last frame that dropped or created the tree; nil
    /// while the checkpoint's tree shows through. A reset hides the
    /// checkpoint's tree and every frame before it.
    var resetVersion: UInt64?
    /// Entries the tree holds, from the frame's count.
    var count: UInt64

    var showsCheckpoint: Bool { resetVersion == nil }
}

/// What every link of one epoch shares, under its one lock.
struct LogEpochShared {
    /// The checkpoint's catalog entries as read so far
    /// (`LogOverlayVersion.checkpointCatalogEntry`).
    var catalogEntries = NameTable<CatalogEntry?>()
    /// A hash of each (tree, key) any frame of the epoch carries, added as
    /// each link is made: a key whose hash is missing is in no frame of any
    /// version made so far, so a point lookup goes straight to the
    /// checkpoint's tree. A write transaction's put looks its key up (the
    /// tree's count depends on it), and searching the overlay's runs cost
    /// a grouped commit about a tenth of its time (profiled). Equal hashes
    /// only send a lookup to the runs.
    var keyHashes = KeyHashFilter()
}

/// One frame's changes to one tree, net of the frame's own order: entries
/// sorted by key, one per key, and whether the frame dropped or created the
/// tree first (its entries then stand on an empty tree).
struct LogFrameTreeChanges {
    var reset: Bool
    var entries: [LogEntry]
}

/// The versions of one epoch as a chain: the checkpoint itself, then one
/// link per commit frame, each immutable once made. A snapshot of a version
/// between checkpoints holds its link and reads the checkpoint's trees
/// through it (`TreeReader`, `Cursor`). Entries point into the frames'
/// bytes, which `owner` (the map) keeps alive.
final class LogOverlayVersion: @unchecked Sendable {
    let epoch: UInt64
    let version: UInt64
    private let parent: LogOverlayVersion?
    /// This version's frame, per tree it touched.
    let changes: NameTable<LogFrameTreeChanges>
    /// Every tree a frame of the epoch touched up to this version.
    let trees: NameTable<LogTreeState>
    /// Entries the epoch's frames carry up to this version, summed frame by
    /// frame (a key written by two frames counts twice): at least the keys
    /// a checkpoint replaying them rewrites, so at least the leaves it does.
    let loggedEntries: UInt64
    private let owner: AnyObject?
    /// Per tree at this version: its entries as sorted runs, oldest first
    /// (`runs(of:)`), and merged into one run (`entries(of:)`), each built
    /// when first read.
    /// Both guarded by `cacheLock`, which every link of the epoch shares:
    /// one mutex for the chain, where a lock per cache per link cost four
    /// allocations per commit and, with their teardown, a tenth of a
    /// grouped commit's instructions (profiled).
    @exclusivity(unchecked) private var runCache = NameTable<[[LogEntry]]>()
    @exclusivity(unchecked) private var merged = NameTable<[LogEntry]>()
    /// The epoch's lock; its value is what the epoch's links share
    /// (`LogEpochShared`).
    private let cacheLock: Locked<LogEpochShared>
    private init(epoch: UInt64, version: UInt64, parent: LogOverlayVersion?, changes: NameTable<LogFrameTreeChanges>,
                 trees: NameTable<LogTreeState>, owner: AnyObject?) {
        self.epoch = epoch
        self.version = version
        self.parent = parent
        self.changes = changes
        self.trees = trees
        self.owner = owner
        cacheLock = parent?.cacheLock ?? Locked(LogEpochShared())
        loggedEntries = changes.reduce(parent?.loggedEntries ?? 0) { $0 + UInt64($1.value.entries.count) }
        // Before the link is anyone's: every link of the epoch made so far,
        // so every version up to this one, has its keys in the filter.
        guard !changes.isEmpty else { return }
        cacheLock.withLock { shared in
            for (tree, change) in changes where !change.entries.isEmpty {
                let seed = KeyHashFilter.seed(tree)
                for entry in change.entries { shared.keyHashes.insert(KeyHashFilter.hash(entry.key, seed: seed)) }
            }
        }
    }

    /// The checkpoint itself: no frame yet.
    static func checkpoint(_ epoch: UInt64) -> LogOverlayVersion {
        LogOverlayVersion(epoch: epoch, version: epoch, parent: nil, changes: NameTable(), trees: NameTable(), owner: nil)
    }

    /// True when no frame of the epoch is in it: reads go to the checkpoint alone.
    var isCheckpoint: Bool { parent == nil }

    /// The checkpoint's catalog entry for `tree` (nil: the checkpoint has no
    /// such tree), from `lookup` the first time any version of the epoch
    /// asks: the checkpoint never changes, and each write transaction's
    /// first look at a tree read the catalog again (5 % of a grouped commit).
    func checkpointCatalogEntry(
        _ tree: String, lookup: () throws(FirnError) -> CatalogEntry?
    ) throws(FirnError) -> CatalogEntry? {
        if let known = cacheLock.withLock({ $0.catalogEntries[tree] }) { return known }
        let entry = try lookup()
        cacheLock.withLock { $0.catalogEntries[tree] = .some(entry) }
        return entry
    }

    // MARK: reading

    /// The entries that stand over `tree`'s checkpoint tree at this
    /// version: sorted by key, one per key, deletions included (they hide
    /// the checkpoint's entries). Empty when no frame touched the tree.
    /// Built from `runs(of:)` when first asked (for cursors, diffs and
    /// checkpoints; point lookups search the runs).
    func entries(of tree: String) -> [LogEntry] {
        if let cached = cacheLock.withLock({ _ in merged[tree] }) { return cached }
        let runs = runs(of: tree)
        var result = runs.first ?? []
        for run in runs.dropFirst() { result = [LogEntry].merging(newer: run, older: result) }
        cacheLock.withLock { _ in merged[tree] = result }
        return result
    }

    /// The newest entry for `key` in `tree` at this version, if a frame
    /// since the checkpoint (or the tree's last reset) changed it.
    func entry(of tree: String, for key: UnsafeRawBufferPointer) -> LogEntry? {
        let hash = KeyHashFilter.hash(key, seed: KeyHashFilter.seed(tree))
        let (cached, mayHold) = cacheLock.withLock { shared in (merged[tree], shared.keyHashes.contains(hash)) }
        if let cached { return cached.entry(for: key) }
        // No frame of the epoch has the key (a put of a new key, the usual
        // case): no runs to build or search.
        guard mayHold else { return nil }
        for run in runs(of: tree).reversed() {
            if let found = run.entry(for: key) { return found }
        }
        return nil
    }

    /// `tree`'s entries at this version as a few runs, each sorted with one
    /// entry per key, oldest first (the newest run is the last): a
    /// version's frame is pushed after its parent's runs, and merged into
    /// the run before it while that run is no more than twice its size.
    /// Runs grow geometrically, so there are about log2(entries) of them,
    /// and each entry is copied about that many times over a whole region:
    /// a frame costs its own entries, not the region's (merging every frame
    /// into one run costs the region's entries per frame, quadratic over a
    /// region). Newest last, so a push and a merge take from the end.
    func runs(of tree: String) -> [[LogEntry]] {
        if let cached = cacheLock.withLock({ _ in runCache[tree] }) { return cached }
        var runs: [[LogEntry]] = []
        let change = changes[tree]
        // The usual case (the writer's next transaction, a refresh): the
        // parent's runs are built, or this frame started the tree anew.
        if change?.reset == true {
            Self.push(change?.entries ?? [], onto: &runs)
        } else if let parent, let cached = cacheLock.withLock({ _ in parent.runCache[tree] }) {
            runs = cached
            Self.push(change?.entries ?? [], onto: &runs)
        } else {
            // Back to a version that has its runs, the tree's last reset, or the checkpoint.
            var pending: [LogOverlayVersion] = []
            var link: LogOverlayVersion? = self
            while let current = link {
                if current !== self, let cached = cacheLock.withLock({ _ in current.runCache[tree] }) {
                    runs = cached
                    break
                }
                pending.append(current)
                if current.changes[tree]?.reset == true { break }
                link = current.parent
            }
            for current in pending.reversed() {
                guard let change = current.changes[tree] else { continue }
                if change.reset { runs = [] }
                Self.push(change.entries, onto: &runs)
            }
        }
        cacheLock.withLock { _ in runCache[tree] = runs }
        return runs
    }

    /// Pushes a frame's entries as the newest run, merging while the run
    /// before is no more than twice the newest.
    private static func push(_ entries: [LogEntry], onto runs: inout [[LogEntry]]) {
        guard !entries.isEmpty else { return }
        runs.append(entries)
        while runs.count >= 2, runs[runs.count - 1].count * 2 >= runs[runs.count - 2].count {
            let newer = runs.removeLast()
            runs[runs.count - 1] = [LogEntry].merging(newer: newer, older: runs[runs.count - 1])
        }
    }

    /// The epoch's frames up to this version, oldest first: each one's
    /// changes, per tree it touched. A checkpoint replays them in this
    /// order (`LogTransaction.replay`), each key as often as frames wrote
    /// it: merging the frames' runs into one sorted run first cost a
    /// checkpoint after 1,800 one-key frames more than its puts (profiled).
    func framesOldestFirst() -> [NameTable<LogFrameTreeChanges>] {
        var frames: [NameTable<LogFrameTreeChanges>] = []
        var link: LogOverlayVersion? = self
        while let current = link, current.parent != nil {
            frames.append(current.changes)
            link = current.parent
        }
        frames.reverse()
        return frames
    }

    /// Whether a frame after version `older` and up to this one touched
    /// `tree` (`older` must be this link's version or an earlier one of
    /// its chain).
    func touched(_ tree: String, after older: UInt64) -> Bool {
        var link: LogOverlayVersion? = self
        while let current = link, current.version > older {
            if current.changes[tree] != nil { return true }
            link = current.parent
        }
        return false
    }

    // MARK: applying a frame

    /// The next version from changes this process made and just wrote as
    /// the frame of `next` (a write transaction's `LogChangeSet`): the link
    /// `applying` builds from that frame's payload, without parsing the
    /// payload the changes were encoded into. Each tree's entries are
    /// sorted, one per key, as a frame's; `owner` keeps their bytes.
    func appending(version next: UInt64, trees frame: [LogChangeSet.FrameTree], owner: AnyObject) -> LogOverlayVersion? {
        guard version < UInt64.max, next == version + 1 else { return nil }
        var newTrees = trees
        var changes = NameTable<LogFrameTreeChanges>()
        for tree in frame {
            let resetVersion = tree.reset ? next : trees[tree.name]?.resetVersion
            newTrees[tree.name] = LogTreeState(exists: tree.exists, resetVersion: resetVersion, count: tree.exists ? tree.count : 0)
            changes[tree.name] = LogFrameTreeChanges(reset: tree.reset, entries: tree.exists ? tree.entries : [])
        }
        return LogOverlayVersion(epoch: epoch, version: next, parent: self, changes: changes, trees: newTrees, owner: owner)
    }

    /// The next version: this one with the commit frame whose `payload` is
    /// given applied. Every operation is checked against the trees as they
    /// stand (a put needs the tree, a create needs it absent, each tree
    /// changed needs its count, no count exceeds `countLimit`); a frame that
    /// fails is `.corrupt`, naming the version and `page` when known.
    /// `checkpointHasTree` says whether the checkpoint holds a tree.
    func applying(
        payload: UnsafeRawBufferPointer, version next: UInt64, owner: AnyObject, geometry: PageGeometry,
        countLimit: UInt64, page: UInt64? = nil, checkpointHasTree: (String) throws(FirnError) -> Bool
    ) throws(FirnError) -> LogOverlayVersion {
        func defect(_ detail: String) -> FirnError {
            .corrupt(path: "", page: page, version: next, detail: "commit frame of version \(next): \(detail)")
        }
        guard version < UInt64.max, next == version + 1 else {
            throw defect("expected version \(version &+ 1)")
        }
        struct Pending {
            var state: LogTreeState
            var reset = false
            var operations: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?, order: Int)] = []
            var needsCount = false
        }
        var pending = NameTable<Pending>()
        var order = 0
        var failure: String?
        let payloadDefect = try LogPayload.forEach(payload, geometry: geometry) { (tree, operation) throws(FirnError) in
            guard failure == nil else { return }
            var entry: Pending
            if let existing = pending[tree] {
                entry = existing
            } else if let state = self.trees[tree] {
                entry = Pending(state: state)
            } else {
                entry = Pending(state: LogTreeState(exists: try checkpointHasTree(tree), resetVersion: nil, count: 0))
            }
            order += 1
            switch operation {
            case .dropTree:
                guard entry.state.exists else { failure = "drops tree \"\(tree)\", which does not exist"; return }
                entry.state = LogTreeState(exists: false, resetVersion: next, count: 0)
                entry.reset = true
                entry.operations.removeAll()
                entry.needsCount = false
            case .createTree:
                guard !entry.state.exists else { failure = "creates tree \"\(tree)\", which exists"; return }
                entry.state = LogTreeState(exists: true, resetVersion: next, count: 0)
                entry.reset = true
                entry.operations.removeAll()
                entry.needsCount = true
            case let .put(key, value):
                guard entry.state.exists else { failure = "puts into tree \"\(tree)\", which does not exist"; return }
                entry.operations.append((key, value, order))
                entry.needsCount = true
            case let .delete(key):
                guard entry.state.exists else { failure = "deletes from tree \"\(tree)\", which does not exist"; return }
                entry.operations.append((key, nil, order))
                entry.needsCount = true
            case let .count(entries):
                guard entry.state.exists else { failure = "counts tree \"\(tree)\", which does not exist"; return }
                guard entries <= countLimit else {
                    failure = "counts \(entries) entries in tree \"\(tree)\", more than the file's \(countLimit) bytes hold"
                    return
                }
                entry.state.count = entries
                entry.needsCount = false
            }
            pending[tree] = entry
        }
        if let payloadDefect { throw defect(payloadDefect.description) }
        if let failure { throw defect(failure) }
        var newTrees = self.trees
        var changes = NameTable<LogFrameTreeChanges>()
        for (tree, entry) in pending {
            if entry.needsCount { throw defect("changes tree \"\(tree)\" without giving its count") }
            // The last operation on each key wins.
            let sorted = entry.operations.sorted { a, b in
                let c = compareBytes(a.key, b.key)
                return c != 0 ? c < 0 : a.order < b.order
            }
            var entries: [LogEntry] = []
            entries.reserveCapacity(sorted.count)
            for operation in sorted {
                let logged = LogEntry(key: operation.key, value: operation.value, version: next)
                if let last = entries.last, compareBytes(last.key, operation.key) == 0 {
                    entries[entries.count - 1] = logged
                } else {
                    entries.append(logged)
                }
            }
            newTrees[tree] = entry.state
            changes[tree] = LogFrameTreeChanges(reset: entry.reset, entries: entries)
        }
        return LogOverlayVersion(epoch: epoch, version: next, parent: self, changes: changes, trees: newTrees, owner: owner)
    }
}
