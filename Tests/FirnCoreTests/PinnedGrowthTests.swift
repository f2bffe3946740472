import Testing
@testable import FirnCore
import FirnTestSupport

/// Free space is reused by the interval rule: a page alive in versions
/// b…d-1 is free once no pinned version lies in that range. So one old
/// pin keeps only its own pages, and the file stays bounded while commits
/// keep overwriting records (LMDB keeps everything newer than its oldest
/// reader and grows without bound here).
@Suite struct PinnedGrowthTests {
    /// 100 bytes, the first half random.
    static func value(_ rng: inout SeededGenerator) -> [UInt8] {
        (0..<100).map { i in i < 50 ? UInt8(truncatingIfNeeded: rng.next()) : 0 }
    }

    /// A store at `path` with `records` records in tree "records" (one
    /// transaction), its size then, and a snapshot pinned on that version.
    static func loadAndPin(_ path: String, _ options: StoreOptions, records: Int,
                           _ rng: inout SeededGenerator) throws -> (Store, before: UInt64, pinned: Snapshot) {
        var options = options
        options.durability = .none  // growth, not durability, is under test; keeps the suite fast
        let store = try Store.open(path, options: options)
        try store.write { txn in
            let tree = try #require(try txn.tree("records"))
            for i in 0..<records { try tree.put(ScatteredKeys.key(i), Self.value(&rng)) }
        }
        return (store, try store.io.size(), try store.snapshot(kind: .frozen, label: "old report"))
    }

    @Test func fileStaysWithinTwoPointTwoTimesItsSizeUnderAnOldPin() throws {
        let dir = try TemporaryDirectory()
        let records = 20_000
        var rng = SeededGenerator(seed: 42)
        func value() -> [UInt8] { Self.value(&rng) }
        let (store, before, pinned) = try Self.loadAndPin(dir.file("growth.firn"), .pageCommits, records: records, &rng)
        let pinnedValue = try #require(try pinned.tree("records")?.get(ScatteredKeys.key(5))?.array)
        // The proportions (100 updates per commit on 100,000 records),
        // scaled down: 20 updates per commit on 20,000 records.
        for _ in 0..<2000 {
            try store.write { txn in
                let tree = try #require(try txn.tree("records"))
                for _ in 0..<20 { try tree.put(ScatteredKeys.key(Int(rng.next() % UInt64(records))), value()) }
            }
        }
        let after = try store.io.size()
        let ratio = Double(after) / Double(before)
        #expect(ratio <= 2.2, "file grew \(ratio)× under one pin (\(before) → \(after) bytes)")
        print("pinned growth: \(before) → \(after) bytes, \(ratio)× under one pin")
        // The pinned snapshot still reads its version.
        #expect(try pinned.tree("records")?.get(ScatteredKeys.key(5))?.array == pinnedValue)
        let current = try store.snapshot()
        let usage = try current.spaceUsage(pinnedVersions: try #require(store.lockFile).livePinnedVersions())
        #expect(usage.retainedBytes(byPinAt: pinned.version) > 0)
        #expect(usage.retainedByPin.count == 1)
        #expect(Verifier.verify(current, slots: try store.readSlots()).findings == [])
        // Releasing the pin frees what it held at the next commit.
        pinned.close()
        current.close()
        try store.write { txn in try #require(try txn.tree("records")).put(ScatteredKeys.key(1), value()) }
        let released = try store.snapshot()
        let afterRelease = try released.spaceUsage(pinnedVersions: try #require(store.lockFile).livePinnedVersions())
        #expect(afterRelease.heldByPinsPages == 0)
        #expect(afterRelease.freePages > usage.freePages)
        #expect(Verifier.verify(released, slots: try store.readSlots()).findings == [])
    }

    @Test func withoutPinsTheFileDoesNotGrowUnderOverwrites() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions.pageCommits
        options.durability = .none
        let store = try Store.open(dir.file("steady.firn"), options: options)
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<5000 { try tree.put(ScatteredKeys.key(i), [UInt8](repeating: 1, count: 100)) }
        }
        let before = try store.io.size()
        for round in 0..<300 {
            try store.write { txn in
                let tree = try #require(try txn.tree("t"))
                for j in 0..<20 { try tree.put(ScatteredKeys.key((round * 20 + j) % 5000), [UInt8](repeating: 2, count: 100)) }
            }
        }
        let after = try store.io.size()
        #expect(Double(after) / Double(before) <= 1.3, "\(before) → \(after)")
    }

    /// The same on the commit log, at the bench's proportions (100,000
    /// records, 100 updates per commit: the growth a checkpoint costs is a
    /// share of the tree only at that size). A checkpoint replaces the
    /// leaves the frames since the last one touched, and those pages wait
    /// two checkpoints, so the log checkpoints once its frames carry about
    /// as many entries as the region has pages (`CheckpointPolicy.entryBudget`),
    /// each such checkpoint making a quarter-size region. Without the budget
    /// a checkpoint rewrote most of the tree and the file reached 5.1× (the
    /// bench); with it but a full-size region per checkpoint, the file grew
    /// with every commit (7×, never settling).
    @Test func onTheCommitLogTheFileStaysWithinTwoPointTwoTimesItsSizeUnderAnOldPin() throws {
        let dir = try TemporaryDirectory()
        let records = 100_000
        var rng = SeededGenerator(seed: 7)
        func value() -> [UInt8] { Self.value(&rng) }
        let options = StoreOptions()
        let (store, before, pinned) = try Self.loadAndPin(dir.file("log-growth.firn"), options, records: records, &rng)
        let pinnedValue = try #require(try pinned.tree("records")?.get(ScatteredKeys.key(5))?.array)
        var checkpoints: Set<UInt64> = []
        var smallRegions = 0
        var logicalAtHalf: UInt64 = 0
        for commit in 1...600 {
            try store.write { txn in
                let tree = try #require(try txn.tree("records"))
                for _ in 0..<100 { try tree.put(ScatteredKeys.key(Int(rng.next() % UInt64(records))), value()) }
            }
            let record = try #require(try store.readSlots().newest)
            if checkpoints.insert(record.version).inserted, record.logRegionPages == options.commitLogPages / 4 { smallRegions += 1 }
            if commit == 300 { logicalAtHalf = record.logicalPageCount }
        }
        let after = try store.io.size()
        let ratio = Double(after) / Double(before)
        print("pinned growth on the log: \(before) → \(after) bytes, \(ratio)× under one pin, \(checkpoints.count) checkpoints, \(smallRegions) small regions")
        #expect(ratio <= 2.2, "file grew \(ratio)× under one pin (\(before) → \(after) bytes)")
        // The entry budget ended the epochs, not the region's room.
        #expect(checkpoints.count >= 200 && smallRegions >= checkpoints.count - 2, "\(checkpoints.count) checkpoints, \(smallRegions) small regions")
        // Settled: the second half of the run did not grow the pages in use.
        let logical = try #require(try store.readSlots().newest).logicalPageCount
        #expect(Double(logical) <= Double(logicalAtHalf) * 1.02, "pages in use \(logicalAtHalf) after 300 commits, \(logical) after 600")
        #expect(try pinned.tree("records")?.get(ScatteredKeys.key(5))?.array == pinnedValue)
        pinned.close()
        let current = try store.snapshot()
        #expect(Verifier.verify(current, slots: try store.readSlots()).findings == [])
        current.close()
    }
}
