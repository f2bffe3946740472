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
    /// Where the next frame goes; nil when the next commit must be a
    /// checkpoint (no region yet, a region full or ending where a frame of
    /// its epoch may lie beyond, frames past the published version).
    let appender: LogAppender?
    /// Bumped when a tree is dropped: handles to the dropped tree refuse use.
    var generations: [String: Int] = [:]

    init(record: CommitRecord, link: LogOverlayVersion?, base: Snapshot, appender: LogAppender?) {
        self.record = record
        self.link = link
        self.appender = appender
        changes = LogChangeSet(base: base)
    }

    /// Whether `payload` may go in a frame: it fits the region, and is
    /// small enough not to crowd out the frames after it (a large
    /// transaction checkpoints instead).
    func admitsFrame(_ payload: [UInt8], deferred: Bool, geometry: PageGeometry) -> Bool {
        guard let appender else { return false }
        let regionBytes = appender.region.pageCount.multipliedReportingOverflow(by: UInt64(geometry.pageSize))
        guard !regionBytes.overflow, UInt64(payload.count) <= regionBytes.partialValue / Self.largestFrameShare else { return false }
        return appender.fits(payloadLength: payload.count, deferred: deferred)
    }

    /// A frame takes at most this share of a region (1/8).
    static let largestFrameShare: UInt64 = 8

    /// Replays the log's frames since the checkpoint, then this
    /// transaction's changes, into `pages`: the trees as the new version
    /// has them. Each tree's count after the frames must be what the last
    /// frame said (`.corrupt` otherwise: the log and its checkpoint disagree).
    func replay(into pages: PageCommit) throws(FirnError) {
        if let link {
            for name in link.trees.keys.sorted() {
                guard let state = link.trees[name],
                      let tree = try replay(name, reset: !state.showsCheckpoint, exists: state.exists,
                                            entries: link.entries(of: name), into: pages) else { continue }
                guard tree.count == state.count else {
                    throw FirnError.corrupt(
                        path: pages.store.path, page: nil, version: link.version,
                        detail: "the log counts \(state.count) entries in tree \"\(name)\", its frames leave \(tree.count)")
                }
            }
        }
        try changes.forEachChangedTree { (name, exists, reset, entries) throws(FirnError) in
            _ = try replay(name, reset: reset, exists: exists, entries: entries, into: pages)
        }
    }

    /// One tree's changes: dropped first when `reset`, then (when it
    /// exists) its entries put and deleted. Returns the tree, nil when gone.
    private func replay(_ name: String, reset: Bool, exists: Bool, entries: [LogEntry],
                        into pages: PageCommit) throws(FirnError) -> MutableTree? {
        if reset { try pages.dropTree(name) }
        guard exists, let tree = try pages.tree(name, create: true) else { return nil }
        for entry in entries {
            let key = Array(entry.key)
            if let value = entry.value {
                try pages.put(tree, key, Array(value))
            } else {
                try tree.delete(key)
            }
        }
        return tree
    }
}
