import Synchronization
import Testing
@testable import FirnCore
import FirnTestSupport

/// The allocator's runs (issue 8 §3): a commit's short-lived pages go to
/// runs of consecutive pages, reclaimed pages are handed out without
/// free-list entries, and neither ever hands out a page twice or a page a
/// readable version can see.
@Suite struct ContiguousAllocationTests {
    /// An allocator over a file of `pages` pages with no free list.
    static func allocator(pages: UInt64 = 100, hint: Int = 0) throws -> (PageAllocator, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let io = try POSIXFile(path: dir.file("alloc"), writable: true, create: true)
        try io.extend(to: pages * 4096)
        return (PageAllocator(pageSize: 4096, logicalPageCount: pages, fileSize: pages * 4096, io: io, runHint: hint), dir)
    }

    @Test func runPagesContinueARunAndHolesTakeIsolatedPages() throws {
        let (allocator, dir) = try Self.allocator(hint: 3)
        _ = dir
        // Isolated 10 and 50; a run 20…23.
        allocator.addUnlisted([50, 22, 10, 20, 23, 21])
        #expect(try allocator.allocate(.hole) == 10)
        #expect(try allocator.allocate(.run) == 20)
        #expect(try allocator.allocate(.run) == 21)
        #expect(try allocator.allocate(.hole) == 50)
        #expect(try allocator.allocate(.run) == 22)
        #expect(try allocator.allocate(.run) == 23)
        // No candidates left and no free list: fresh pages, consecutive.
        #expect(try allocator.allocate(.run) == 100)
        #expect(try allocator.allocate(.run) == 101)
        #expect(allocator.logicalPageCount == 102)
        let (listed, unlisted) = allocator.takeConsumed()
        #expect(listed.isEmpty)
        #expect(unlisted == 6)
    }

    @Test func aRunStartsAtTheFirstRunLongEnoughForTheHint() throws {
        let (allocator, dir) = try Self.allocator(hint: 4)
        _ = dir
        // Runs 5…6 (2), 30…34 (5), 60…63 (4): the hint of 4 picks 30.
        allocator.addUnlisted([5, 6, 30, 31, 32, 33, 34, 60, 61, 62, 63] + Array(70...90).filter { $0 % 2 == 0 })
        #expect(try allocator.allocate(.run) == 30)
        #expect(try allocator.allocate(.run) == 31)
    }

    @Test func freePagesAreUsedBeforeTheFileGrowsAndLeftoversGoBackOnce() throws {
        let (allocator, dir) = try Self.allocator(hint: 4)
        _ = dir
        allocator.addUnlisted([5, 9, 40])
        // No run of four: scattered free pages still come before fresh ones.
        #expect(try allocator.allocate(.run) == 5)
        #expect(try allocator.allocate(.hole) == 9)
        #expect(allocator.logicalPageCount == 100)
        // The pages not handed out go back to the ledger, once.
        #expect(allocator.takeUnlisted() == [40])
        #expect(allocator.takeUnlisted() == [])
        #expect(try allocator.allocate(.run) == 100)
    }

    @Test func withFewFreePagesARunGoesPastTheEndRatherThanIntoPieces() throws {
        let (allocator, dir) = try Self.allocator(hint: 4)
        _ = dir
        // Pieces 5…6 and 9, no run of four; three free pages are few.
        allocator.addUnlisted([5, 6, 9])
        allocator.freePagesAtStart = 3
        #expect(try allocator.allocate(.run) == 100)
        #expect(try allocator.allocate(.run) == 101)
        // Long-lived pages take the shortest piece first.
        #expect(try allocator.allocate(.hole) == 9)
        #expect(try allocator.allocate(.run) == 102)
        #expect(try allocator.allocate(.hole) == 5)
        #expect(allocator.logicalPageCount == 103)
    }

    @Test func withoutAFreePageCountOrWithManyFreePagesRunsUsePieces() throws {
        for free: UInt64? in [nil, 200] {
            let (allocator, dir) = try Self.allocator(pages: 1000, hint: 4)
            _ = dir
            allocator.addUnlisted([5, 6, 9])
            allocator.freePagesAtStart = free
            // The longest piece, then the run in progress is used up: the
            // next page is the shortest piece, and the file does not grow.
            #expect(try allocator.allocate(.run) == 5)
            #expect(try allocator.allocate(.run) == 6)
            #expect(try allocator.allocate(.run) == 9)
            #expect(allocator.logicalPageCount == 1000)
        }
    }

    @Test func aUsedUpRunContinuesFromTheShortestPieceNotAnotherWholeRun() throws {
        let (allocator, dir) = try Self.allocator(pages: 1000, hint: 3)
        _ = dir
        // Runs 10…12 and 20…23 and a piece at 30.
        allocator.addUnlisted([10, 11, 12, 20, 21, 22, 23, 30])
        #expect(try allocator.allocate(.run) == 10)
        #expect(try allocator.allocate(.run) == 11)
        #expect(try allocator.allocate(.run) == 12)
        #expect(try allocator.allocate(.run) == 30)
        // The run 20…23 is still whole for the next commit.
        #expect(try allocator.allocate(.run) == 20)
    }

    @Test func theRunHintIsTheLongestOfTheLastFewCommits() {
        var recent = RecentRunLengths()
        #expect(recent.longest == 0)
        recent.record(4)
        recent.record(6)
        for _ in 0..<(RecentRunLengths.kept - 1) { recent.record(4) }
        #expect(recent.longest == 6)
        recent.record(4)
        #expect(recent.longest == 4)
    }

    @Test func listedPagesAreReadInBatchesAndConsumedOnce() throws {
        let (allocator, dir) = try Self.allocator(hint: 2)
        _ = dir
        let free: [UInt64] = [3, 4, 7, 8, 9, 12]
        let reads = Mutex(0)
        allocator.readFree = { from, limit in
            reads.withLock { $0 += 1 }
            return Array(free.filter { $0 >= from }.prefix(limit))
        }
        allocator.addUnlisted([50])
        var handed: [UInt64] = []
        for _ in 0..<9 { handed.append(try allocator.allocate(.run)) }
        #expect(Set(handed).count == handed.count, "a page was handed out twice: \(handed)")
        #expect(Set(handed).isSuperset(of: free + [50]))
        let (listed, unlisted) = allocator.takeConsumed()
        #expect(listed.sorted() == free)
        #expect(unlisted == 1)
        #expect(reads.withLock { $0 } == 1)
    }

    /// Pages a commit writes, as (first page, pages) runs, from a
    /// recording of the commit's writes past the slots.
    static func runs(_ operations: ArraySlice<RecordingIO.Operation>) -> [(UInt64, Int)] {
        var pages: [UInt64] = []
        for case let .write(offset, bytes) in operations where offset >= 8192 && bytes.count == 4096 {
            pages.append(offset / 4096)
        }
        pages.sort()
        var out: [(UInt64, Int)] = []
        for page in pages {
            if let last = out.last, last.0 + UInt64(last.1) == page {
                out[out.count - 1].1 += 1
            } else {
                out.append((page, 1))
            }
        }
        return out
    }

    @Test func smallCommitsWriteTheirPagesInFewRunsAndTheFileStaysSmall() throws {
        let dir = try TemporaryDirectory()
        let recorder = Mutex<RecordingIO?>(nil)
        var options = StoreOptions()
        options.durability = .none
        options.wrapIO = { base in
            let io = RecordingIO(base)
            recorder.withLock { $0 = io }
            return io
        }
        let store = try Store.open(dir.file("runs.firn"), options: options)
        let io = try #require(recorder.withLock { $0 })
        var rng = SeededGenerator(seed: 8)
        let commits = 1500
        var runCounts: [Int] = []
        for i in 0..<commits {
            let before = io.count
            try store.write { txn in
                let tree = try #require(try txn.tree("kv"))
                try tree.put(ScatteredKeys.key(Int(rng.next() % 3000)), Array(repeating: UInt8(i & 0xFF), count: 100))
            }
            if i >= 500 { runCounts.append(Self.runs(io.operations[before...]).count) }
        }
        let mean = Double(runCounts.reduce(0, +)) / Double(runCounts.count)
        // About five pages a commit: the leaf in a hole, the rest in runs
        // (2.7 runs on average when written; 3.3 before runs could go past
        // the end of the file). Scattered, as before runs, they were five.
        #expect(mean <= 3.0, "a small commit wrote its pages in \(mean) runs on average")
        let snapshot = try store.snapshot()
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
        let usage = try snapshot.spaceUsage(pinnedVersions: [])
        // Runs cost little space: free pages stay a small part of the file.
        #expect(usage.freePages <= 64, "free pages: \(usage.freePages)")
        print("runs per small commit: \(mean); free pages: \(usage.freePages)")
    }

    @Test func pinnedVersionsKeepTheirPagesWhileRunsAreReused() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions()
        options.durability = .none
        let store = try Store.open(dir.file("pins.firn"), options: options)
        var rng = SeededGenerator(seed: 9)
        func value(_ tag: Int) -> [UInt8] { Array(repeating: UInt8(tag & 0xFF), count: 100) }
        var pins: [(Snapshot, [[UInt8]: [UInt8]])] = []
        var model: [[UInt8]: [UInt8]] = [:]
        for i in 0..<1200 {
            try store.write { txn in
                let tree = try #require(try txn.tree("kv"))
                for _ in 0..<(i % 7 == 0 ? 40 : 1) {
                    let key = ScatteredKeys.key(Int(rng.next() % 2000))
                    if rng.next() % 5 == 0 {
                        try tree.delete(key)
                        model[key] = nil
                    } else {
                        try tree.put(key, value(i))
                        model[key] = value(i)
                    }
                }
            }
            // Pin a version now and then, release the oldest pin sometimes.
            if i % 97 == 13 { pins.append((try store.snapshot(kind: .frozen), model)) }
            if i % 211 == 50, !pins.isEmpty { pins.removeFirst().0.close() }
        }
        #expect(!pins.isEmpty)
        for (snapshot, expected) in pins {
            // Every page the pinned version sees is intact (the Merkle walk
            // reads them all) and holds what it held.
            #expect(Verifier.verify(snapshot, slots: nil).findings == [])
            let tree = try #require(try snapshot.tree("kv"))
            for (key, value) in expected { #expect(try tree.get(key)?.array == value) }
            #expect(tree.count == UInt64(expected.count))
        }
        let current = try store.snapshot()
        #expect(Verifier.verify(current, slots: try store.readSlots()).findings == [])
    }
}
