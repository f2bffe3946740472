import Testing
@testable import FirnCore
import FirnTestSupport

/// The commit log's entry budget (`CheckpointPolicy.entryBudget`): how many
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
        #expect(CheckpointPolicy.entryBudget(Self.record(logical: 230), regionPages: 128) == nil)
        // Free and retired pages are no tree's.
        #expect(CheckpointPolicy.entryBudget(Self.record(logical: 5_000, free: 2_000, retired: 2_800), regionPages: 128) == nil)
    }

    @Test func aLargerTreeIsBoundByTheRegionOrAThirtySecondOfIt() throws {
        // 3,370 tree pages: 128 pages bound (more than 3,370 / 32); spread at
        // random, 130 entries are expected to hit 128 of them.
        let budget = try #require(CheckpointPolicy.entryBudget(Self.record(logical: 3_500), regionPages: 128))
        #expect((128...132).contains(budget), "\(budget)")
        // 63,870 tree pages: a thirty-second (1,996 pages), about 2,028 entries.
        let large = try #require(CheckpointPolicy.entryBudget(Self.record(logical: 64_000), regionPages: 128))
        #expect((1_996...2_060).contains(large), "\(large)")
        // Never fewer entries than pages bound: each entry hits at most one leaf.
        for logical: UInt64 in [300, 1_000, 10_000, 1_000_000] {
            let record = Self.record(logical: logical)
            if let budget = CheckpointPolicy.entryBudget(record, regionPages: 128) {
                #expect(budget >= max(128, (logical - 130) / 32), "\(logical) pages: \(budget)")
            }
        }
    }

    @Test func countsThatDoNotAddUpGiveNoBudget() {
        // A record whose free and retired counts exceed its pages (damage the
        // open-time checks report): no budget rather than an overflow.
        #expect(CheckpointPolicy.entryBudget(Self.record(logical: 100, free: .max, retired: 2), regionPages: 128) == nil)
        #expect(CheckpointPolicy.entryBudget(Self.record(logical: 100, free: 90, retired: 90), regionPages: 128) == nil)
    }

    /// A group of deferred commits runs past the budget to its durability
    /// point. Within `groupSealShare` budgets that point seals; past them it
    /// is the checkpoint, with the one sync it makes (a checkpoint inside
    /// the group and a seal after it made two). Past `groupOverrun` budgets
    /// a deferred commit checkpoints at once, and a durable commit past one
    /// budget does, as before.
    @Test func aGroupRunsPastTheBudgetToItsDurabilityPointWhichIsTheCheckpoint() throws {
        let dir = try TemporaryDirectory(prefix: "firn-budget-group", inMemory: true)
        var options = StoreOptions()
        options.commitLogPages = 4
        options.wrapIO = { RecordingIO($0) }
        let store = try Store.open(dir.file("budget.firn"), options: options)
        defer { store.close() }
        let recorder = try #require(store.io as? RecordingIO)
        func key(_ n: Int) -> [UInt8] { Array("record \((n * 7_919) % 600)".utf8) }
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for n in 0..<600 { try tree.put(key(n), [UInt8](repeating: UInt8(n % 251), count: 300)) }
        }
        let loaded = try #require(try store.readSlots().newest)
        let budget = try #require(CheckpointPolicy.entryBudget(loaded, regionPages: options.commitLogPages))
        #expect(budget >= 2 && budget <= 8, "budget \(budget)")
        func commitOne(_ n: Int, _ durability: CommitDurability) throws -> UInt64 {
            let txn = try store.beginWriteBlocking()
            try #require(try txn.tree("t")).put(key(n), [1, 2, 3])
            return try txn.commit(durability: durability)
        }
        func syncs(from start: Int) -> Int {
            recorder.operations[start...].filter { if case .sync = $0 { true } else { false } }.count
        }

        // Past the budget, within the share a group may run to: the
        // durability point seals, twice, and the checkpoint stays.
        var committed = 0
        for round in 1...2 {
            let target = Int(budget * CheckpointPolicy.groupSealShare) * round / 2
            while committed < target {
                let version = try commitOne(committed, .deferred)
                #expect(try store.readSlots().newest == loaded, "deferred commit \(committed) (v\(version)) checkpointed")
                committed += 1
            }
            let open = try store.currentVersion
            #expect(try store.sync() == open)
            #expect(try store.readSlots().newest == loaded, "the durability point at \(committed) entries checkpointed")
            #expect(try store.durableVersion == open)
        }
        // On to `groupOverrun` budgets: frames, no checkpoint.
        while committed < Int(budget * CheckpointPolicy.groupOverrun) {
            let version = try commitOne(committed, .deferred)
            #expect(try store.readSlots().newest == loaded, "deferred commit \(committed) (v\(version)) checkpointed within the overrun")
            committed += 1
        }
        let latest = try store.currentVersion
        #expect(try store.durableVersion < latest)
        // The durability point: a checkpoint of the next version, one sync.
        let start = recorder.count
        let durable = try store.sync()
        let checkpoint = try #require(try store.readSlots().newest)
        #expect(durable == latest + 1 && checkpoint.version == durable && checkpoint.logRegion != nil && !checkpoint.unsealed)
        #expect(syncs(from: start) == 1, "sync() made \(syncs(from: start)) syncs")
        #expect(try store.durableVersion == durable)

        // Past `groupOverrun` budgets, a deferred commit checkpoints at once.
        let base = try #require(CheckpointPolicy.entryBudget(checkpoint, regionPages: options.commitLogPages))
        var checkpointedAt: Int? = nil
        for n in 0..<Int(base * CheckpointPolicy.groupOverrun + 1) {
            let version = try commitOne(100 + n, .deferred)
            if try store.readSlots().newest?.version == version { checkpointedAt = n; break }
        }
        #expect(checkpointedAt == Int(base * CheckpointPolicy.groupOverrun), "checkpointed at deferred commit \(String(describing: checkpointedAt)) of a budget of \(base)")
        _ = try store.sync()

        // A durable commit past the budget checkpoints at once.
        let durableBase = try #require(try store.readSlots().newest)
        let durableBudget = try #require(CheckpointPolicy.entryBudget(durableBase, regionPages: options.commitLogPages))
        var durableCheckpointAt: Int? = nil
        for n in 0..<Int(durableBudget + 1) {
            let version = try commitOne(200 + n, .durable)
            if try store.readSlots().newest?.version == version { durableCheckpointAt = n; break }
        }
        #expect(durableCheckpointAt == Int(durableBudget), "durable commits checkpointed at \(String(describing: durableCheckpointAt)) of a budget of \(durableBudget)")
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
    }
}
