import CFirnShims

/// The commit-log half of a write transaction (docs/COMMIT-PATH.md, "The
/// commit log"): its changes kept as a `LogChangeSet` over the base
/// version, committed as one frame appended to the checkpoint's region —
/// or, when no frame may go there, by a checkpoint: the frames since the
/// last one and these changes replayed into a `PageCommit`.
final class LogTransaction {
    /// The checkpoint the base version stands on.
    let record: CommitRecord
    /// The base version's link, when it is a frame's.
    let link: LogOverlayVersion?
    let changes: LogChangeSet
    /// Where the next frame goes, in `record`'s region; nil when the next
    /// commit must be a checkpoint (no region yet, a region full or ending
    /// where a frame of its epoch may lie beyond, frames past the published
    /// version).
    let appender: LogAppender?
    /// Bumped when a tree is dropped: handles to the dropped tree refuse use.
    var generations: [String: Int] = [:]

    init(record: CommitRecord, link: LogOverlayVersion?, base: Snapshot, appender: LogAppender?) {
        self.record = record
        self.link = link
        self.appender = appender
        changes = LogChangeSet(base: base)
    }

    /// The entries the frames since the checkpoint carry with this
    /// transaction's changes: what the checkpoint policy weighs.
    var entries: UInt64 {
        let entries = (link?.loggedEntries ?? 0).addingReportingOverflow(changes.entryCount)
        return entries.overflow ? .max : entries.partialValue
    }

    /// Replays the log's frames since the checkpoint, then this
    /// transaction's changes, into `pages`: the trees as the new version
    /// has them. Each tree's count after the frames must be what the last
    /// frame said (`.corrupt` otherwise: the log and its checkpoint disagree).
    func replay(into pages: PageCommit) throws(FirnError) {
        if let link {
            let frames = link.framesOldestFirst()
            for name in link.trees.keys.sorted() {
                guard let state = link.trees[name],
                      let tree = try replayFrames(name, state: state, frames: frames, into: pages) else { continue }
                guard tree.count == state.count else {
                    throw FirnError.corrupt(
                        path: pages.store.path, page: nil, version: link.version,
                        detail: "the log counts \(state.count) entries in tree \"\(name)\", its frames leave \(tree.count)")
                }
            }
        }
        try changes.forEachChangedTree { (name, exists, reset, entries) throws(FirnError) in
            _ = try replay(name, reset: reset, exists: exists, entryLists: CollectionOfOne(entries), into: pages)
        }
    }

    /// One tree's frames since the checkpoint, in version order: the
    /// entries of the last frame that reset it (hiding the checkpoint's
    /// tree) and of every frame after. Returns the tree, nil when gone.
    private func replayFrames(_ name: String, state: LogTreeState, frames: [NameTable<LogFrameTreeChanges>],
                              into pages: PageCommit) throws(FirnError) -> MutableTree? {
        let first = state.showsCheckpoint ? 0 : frames.lastIndex { $0[name]?.reset == true } ?? frames.count
        return try replay(name, reset: !state.showsCheckpoint, exists: state.exists,
                          entryLists: frames[first...].lazy.compactMap { $0[name]?.entries }, into: pages)
    }

    /// One tree's changes: dropped first when `reset`, then (when it
    /// exists) each list of entries put and deleted in turn. Returns the
    /// tree, nil when gone.
    private func replay(_ name: String, reset: Bool, exists: Bool, entryLists: some Sequence<[LogEntry]>,
                        into pages: PageCommit) throws(FirnError) -> MutableTree? {
        do throws(FirnError) {
            if reset { try pages.dropTree(name) }
            guard exists, let tree = try pages.tree(name, create: true) else { return nil }
            for entries in entryLists { try apply(entries, to: tree, in: pages) }
            return tree
        } catch {
            // A damaged page the replay builds on: named with the tree and
            // the version this checkpoint builds on.
            throw error.located(in: pages.store.path, version: changes.base.version).inTree(name)
        }
    }

    /// How many entries ahead `apply` fetches bytes.
    private static let prefetchDistance = 8

    /// Puts and deletes `entries` (nil value: deleted; deleting an absent
    /// key is no change) in order.
    private func apply(_ entries: [LogEntry], to tree: MutableTree, in pages: PageCommit) throws(FirnError) {
        for (i, entry) in entries.enumerated() {
            // The entries' bytes lie where their puts stored them, in put
            // order, not key order: each is a cache miss, so the bytes of
            // an entry a few ahead are fetched while this one is put.
            if i + Self.prefetchDistance < entries.count {
                let ahead = entries[i + Self.prefetchDistance]
                firn_prefetch(ahead.key.baseAddress)
                firn_prefetch(ahead.value?.baseAddress)
            }
            if let value = entry.value {
                try pages.put(tree, entry.key, value)
            } else {
                try tree.delete(Array(entry.key))
            }
        }
    }
}
