#if canImport(Glibc)
import Glibc
#endif
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

    /// Whether a transaction's changes may go in a frame, and if not, why.
    enum FrameAdmission: Equatable {
        case admitted
        /// The frames since the checkpoint would carry more entries than a
        /// checkpoint should rewrite (`entryBudget`).
        case overBudget
        /// Larger than a frame may be, or no room left in the region (or
        /// no region to append to).
        case noRoom
    }

    /// Whether `payload` may go in a frame: the frames since the checkpoint
    /// stay within the entry budget (when `budgeted`), the frame is small
    /// enough not to crowd out the frames after it (a large transaction
    /// checkpoints instead), and it fits the region.
    func admission(_ payload: [UInt8], deferred: Bool, regionPages: UInt32, budgeted: Bool,
                   geometry: PageGeometry) -> FrameAdmission {
        guard let appender else { return .noRoom }
        if budgeted {
            switch budgetStanding(regionPages: regionPages) {
            case .within: break
            // A deferred frame may run past the budget: its group's
            // durability point seals, or past `groupSealShare` budgets
            // checkpoints instead of sealing (`Store.sealLog`), the
            // checkpoint's sync the group's, one sync where a checkpoint
            // inside the group and the seal after it made two.
            case .due, .groupDue: if !deferred { return .overBudget }
            case .over: return .overBudget
            }
        }
        // Sized by the regions checkpoints make, not this one: a small one
        // (`checkpointRegionPages`) takes as large a frame as any.
        let sizing = max(UInt64(regionPages), appender.region.pageCount)
        let regionBytes = sizing.multipliedReportingOverflow(by: UInt64(geometry.pageSize))
        guard !regionBytes.overflow, UInt64(payload.count) <= regionBytes.partialValue / Self.largestFrameShare,
              appender.fits(payloadLength: payload.count, deferred: deferred) else { return .noRoom }
        return .admitted
    }

    /// A frame takes at most this share of a region (1/8).
    static let largestFrameShare: UInt64 = 8

    /// The size of the region this transaction's checkpoint makes: the
    /// configured size, or a quarter of it (room for two of the largest
    /// frames) when the entry budget, not the room, ended the epoch after
    /// frames that filled no more than half of that. A full-size region per
    /// small checkpoint churned the file's free space: a retired region
    /// comes back whole two checkpoints later, but one of another size
    /// mostly does not fit it, and each new one went past the end of the file.
    func checkpointRegionPages(configured: UInt32, after admission: FrameAdmission?, geometry: PageGeometry) -> UInt32 {
        let small = max(1, configured / Self.smallRegionShare)
        guard admission == .overBudget, small < configured, let appender else { return configured }
        let pageSize = UInt64(geometry.pageSize)
        let used = appender.nextOffset / pageSize + (appender.nextOffset % pageSize == 0 ? 0 : 1)
        return used <= UInt64(small / 2) ? small : configured
    }

    static let smallRegionShare: UInt32 = 4

    /// The most entries the frames since a checkpoint may carry before
    /// the next commit is a checkpoint instead, nil for no limit: a
    /// checkpoint rewrites the leaves those entries fall in, and until the
    /// two checkpoints after it the pages it replaced wait (the commit slots
    /// keep the versions that see them), so that is the room the log costs
    /// the file beyond its version's pages. The limit keeps the estimated
    /// leaves within `regionPages` or a thirty-second of the pages in use,
    /// whichever is more. The estimate takes keys as spread at random over
    /// the pages in use (`pages × (1 − e^(−entries / pages))`, the expected
    /// pages hit): ascending keys hit fewer, and checkpoint sooner than
    /// they need to, each cheaply. A tree that is all within the bound has
    /// no limit: every frame until the region is full.
    static func entryBudget(_ record: CommitRecord, regionPages: UInt32) -> UInt64? {
        // The pages of its trees: neither free nor retired, nor a slot or the log region.
        let (held, overflow) = record.freePages.addingReportingOverflow(record.retiredPages)
        let (notTrees, overflowB) = held.addingReportingOverflow(UInt64(record.logRegionPages) + 2)
        guard !overflow, !overflowB, notTrees < record.logicalPageCount else { return nil }
        let pages = Double(record.logicalPageCount - notTrees)
        let bound = max(Double(regionPages), pages / Double(Self.treeShare))
        guard bound < pages else { return nil }
        return UInt64(-pages * log1p(-bound / pages))
    }

    /// The share of the pages in use a checkpoint may rewrite (1/32).
    static let treeShare: UInt64 = 32

    /// Where `entries` logged since `record`'s checkpoint stand against its
    /// entry budget.
    enum BudgetStanding: Equatable {
        /// Within it (or no budget): frames go on.
        case within
        /// Past it: the next durable commit is a checkpoint; a group's
        /// deferred frames go on, and its durability point seals.
        case due
        /// Past `groupSealShare` times it: the open group's durability
        /// point is a checkpoint too (`Store.sealLog`).
        case groupDue
        /// Past `groupOverrun` times it: even a deferred frame checkpoints
        /// at once, so a long group (or one never made durable) cannot
        /// carry the epoch far past what a checkpoint should rewrite.
        case over

        /// Whether a group's durability point is a checkpoint.
        var checkpointsGroup: Bool { self == .groupDue || self == .over }
    }

    /// Where the frames since the checkpoint and this transaction's
    /// changes stand against the entry budget.
    func budgetStanding(regionPages: UInt32) -> BudgetStanding {
        let entries = (link?.loggedEntries ?? 0).addingReportingOverflow(changes.entryCount)
        return Self.budgetStanding(record, entries: entries.overflow ? .max : entries.partialValue, regionPages: regionPages)
    }

    static func budgetStanding(_ record: CommitRecord, entries: UInt64, regionPages: UInt32) -> BudgetStanding {
        guard let budget = entryBudget(record, regionPages: regionPages), entries > budget else { return .within }
        func past(_ share: UInt64) -> Bool {
            let limit = budget.multipliedReportingOverflow(by: share)
            return !limit.overflow && entries > limit.partialValue
        }
        return past(groupOverrun) ? .over : past(groupSealShare) ? .groupDue : .due
    }

    /// How far past the budget grouped commits carry the epoch before a
    /// durability point checkpoints instead of sealing (4×). Grouped
    /// commits trade file space for rarer checkpoints: each rewrites the
    /// leaves its epoch touched, and with keys spread over the tree an
    /// epoch four budgets long rewrites far fewer leaves per entry (with a
    /// 10,000-record tree of random keys, one checkpoint per ~700 entries
    /// instead of per ~180-360, at about 1.6× the file; docs/COMMIT-PATH.md "Checkpoints").
    /// A durable commit still checkpoints once past one budget.
    static let groupSealShare: UInt64 = 4

    /// How far past the budget deferred frames may carry the epoch at all
    /// (8×: twice `groupSealShare`, so a group as long as an epoch still
    /// ends in one checkpoint at its durability point).
    static let groupOverrun: UInt64 = 8

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

    /// Puts and deletes `entries` (nil value: deleted; deleting an absent
    /// key is no change) in order.
    private func apply(_ entries: [LogEntry], to tree: MutableTree, in pages: PageCommit) throws(FirnError) {
        for entry in entries {
            let key = Array(entry.key)
            if let value = entry.value {
                try pages.put(tree, key, Array(value))
            } else {
                try tree.delete(key)
            }
        }
    }
}
