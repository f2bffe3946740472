import Testing
@testable import FirnCore

/// The commit log's entry budget (`LogTransaction.entryBudget`): how many
/// entries the frames since a checkpoint may carry before the next commit
/// checkpoints, from the checkpoint's counts. The room a checkpoint costs
/// the file is the leaves it rewrites; the budget keeps their estimate
/// within the region's pages or a thirty-second of the trees' pages.
@Suite struct CommitLogBudgetTests {
    static func record(logical: UInt64, free: UInt64 = 0, retired: UInt64 = 0, region: UInt32 = 128) -> CommitRecord {
        var record = CommitRecord(
            pageSize: 4096, version: 9, timestampNanoseconds: 0, logicalPageCount: logical, catalogRoot: .none,
            spaceRoot: .none, bytesWritten: 0, freePages: free, retiredPages: retired)
        record.logRegionStart = 2
        record.logRegionPages = region
        return record
    }

    @Test func treesWithinTheRegionsPagesHaveNoBudget() {
        // 2 slots, the region, 100 pages of trees: a checkpoint rewrites at most 100.
        #expect(LogTransaction.entryBudget(Self.record(logical: 230), regionPages: 128) == nil)
        // Free and retired pages are no tree's.
        #expect(LogTransaction.entryBudget(Self.record(logical: 5_000, free: 2_000, retired: 2_800), regionPages: 128) == nil)
    }

    @Test func aLargerTreeIsBoundByTheRegionOrAThirtySecondOfIt() throws {
        // 3,370 tree pages: 128 pages bound (more than 3,370 / 32); spread at
        // random, 130 entries are expected to hit 128 of them.
        let budget = try #require(LogTransaction.entryBudget(Self.record(logical: 3_500), regionPages: 128))
        #expect((128...132).contains(budget), "\(budget)")
        // 63,870 tree pages: a thirty-second (1,996 pages), about 2,028 entries.
        let large = try #require(LogTransaction.entryBudget(Self.record(logical: 64_000), regionPages: 128))
        #expect((1_996...2_060).contains(large), "\(large)")
        // Never fewer entries than pages bound: each entry hits at most one leaf.
        for logical: UInt64 in [300, 1_000, 10_000, 1_000_000] {
            let record = Self.record(logical: logical)
            if let budget = LogTransaction.entryBudget(record, regionPages: 128) {
                #expect(budget >= max(128, (logical - 130) / 32), "\(logical) pages: \(budget)")
            }
        }
    }

    @Test func countsThatDoNotAddUpGiveNoBudget() {
        // A record whose free and retired counts exceed its pages (damage the
        // open-time checks report): no budget rather than an overflow.
        #expect(LogTransaction.entryBudget(Self.record(logical: 100, free: .max, retired: 2), regionPages: 128) == nil)
        #expect(LogTransaction.entryBudget(Self.record(logical: 100, free: 90, retired: 90), regionPages: 128) == nil)
    }
}
