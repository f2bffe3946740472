#if canImport(Glibc)
import Glibc
#endif

/// When a commit on the commit log is a frame and when it is a checkpoint
/// instead (docs/COMMIT-PATH.md, "Checkpoints"): the one place that decides.
/// The format requires a checkpoint only when no frame can go in the region
/// (FORMAT.md 8.2); everything else here is policy, tuned by the bench's
/// pinned-growth and grouped-commit rows. Its inputs are the store's options
/// (`commitLogPages`, `checkpointsOnEntryBudget`), the checkpoint's record,
/// the entries logged since it, and the appender's room.
struct CheckpointPolicy {
    /// The region size checkpoints make (`StoreOptions.commitLogPages`).
    let regionPages: UInt32
    /// Whether the entry budget ends an epoch (`StoreOptions.checkpointsOnEntryBudget`).
    let budgeted: Bool
    let geometry: PageGeometry

    init(options: StoreOptions, geometry: PageGeometry) {
        regionPages = options.commitLogPages
        budgeted = options.checkpointsOnEntryBudget
        self.geometry = geometry
    }

    // MARK: frames

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

    /// Whether a payload of `payloadLength` bytes may go in a frame after
    /// `record`'s checkpoint, `entries` logged since it with this
    /// transaction's: the frames since the checkpoint stay within the entry
    /// budget (when `budgeted`), the frame is small enough not to crowd
    /// out the frames after it (a large transaction checkpoints instead),
    /// and it fits the region (`appender`, nil: none to append to).
    func admission(payloadLength: Int, deferred: Bool, record: CommitRecord, entries: UInt64,
                   appender: LogAppender?) -> FrameAdmission {
        guard let appender else { return .noRoom }
        if budgeted {
            switch Self.budgetStanding(record, entries: entries, regionPages: regionPages) {
            case .within: break
            // A deferred frame may run past the budget: its group's
            // durability point seals, or past `groupSealShare` budgets
            // checkpoints instead of sealing (`sealsGroup`), the
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
        guard !regionBytes.overflow, UInt64(payloadLength) <= regionBytes.partialValue / Self.largestFrameShare,
              appender.fits(payloadLength: payloadLength, deferred: deferred) else { return .noRoom }
        return .admitted
    }

    /// A frame takes at most this share of a region (1/8).
    static let largestFrameShare: UInt64 = 8

    /// Why a checkpoint asked for (`Store.sync()` when no seal goes in,
    /// `Store.checkpoint()`) is made, for its region's size: the budget's,
    /// when the log is past it; nil otherwise.
    func askedCheckpointAdmission(_ record: CommitRecord, entries: UInt64) -> FrameAdmission? {
        guard budgeted, Self.budgetStanding(record, entries: entries, regionPages: regionPages) != .within else {
            return nil
        }
        return .overBudget
    }

    // MARK: groups

    /// Whether the durability point of the open group, its newest frame
    /// `entries` past `record`'s checkpoint, may be a seal frame (when one
    /// fits the region) rather than a checkpoint: within `groupSealShare`
    /// budgets.
    func sealsGroup(_ record: CommitRecord, entries: UInt64) -> Bool {
        !budgeted || !Self.budgetStanding(record, entries: entries, regionPages: regionPages).checkpointsGroup
    }

    // MARK: checkpoints

    /// The size of the region a checkpoint makes: the configured size, or
    /// a quarter of it (room for two of the largest frames) when the entry
    /// budget, not the room, ended the epoch after frames that filled no
    /// more than half of that. A full-size region per small checkpoint
    /// churned the file's free space: a retired region comes back whole
    /// two checkpoints later, but one of another size mostly does not fit
    /// it, and each new one went past the end of the file.
    func checkpointRegionPages(after admission: FrameAdmission?, appender: LogAppender?) -> UInt32 {
        let small = max(1, regionPages / Self.smallRegionShare)
        guard admission == .overBudget, small < regionPages, let appender else { return regionPages }
        let pageSize = UInt64(geometry.pageSize)
        let used = appender.nextOffset / pageSize + (appender.nextOffset % pageSize == 0 ? 0 : 1)
        return used <= UInt64(small / 2) ? small : regionPages
    }

    static let smallRegionShare: UInt32 = 4

    // MARK: the entry budget

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

    /// Where `entries` logged since a checkpoint stand against its entry budget.
    enum BudgetStanding: Equatable {
        /// Within it (or no budget): frames go on.
        case within
        /// Past it: the next durable commit is a checkpoint; a group's
        /// deferred frames go on, and its durability point seals.
        case due
        /// Past `groupSealShare` times it: the open group's durability
        /// point is a checkpoint too (`sealsGroup`).
        case groupDue
        /// Past `groupOverrun` times it: even a deferred frame checkpoints
        /// at once, so a long group (or one never made durable) cannot
        /// carry the epoch far past what a checkpoint should rewrite.
        case over

        /// Whether a group's durability point is a checkpoint.
        var checkpointsGroup: Bool { self == .groupDue || self == .over }
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
}
