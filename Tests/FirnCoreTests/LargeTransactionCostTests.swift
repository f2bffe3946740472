import Testing
@testable import FirnCore
import FirnTestSupport

/// A write transaction's cost on the commit log is O(n log n) in its puts,
/// whatever their number and key order (the speed issue's §0: a sorted
/// array kept in order on every put moved O(n²) entries, and a
/// million-record import never finished). Bounded by count — the key
/// comparisons and entry moves `LogEntryTable.work` counts — not by clock.
@Suite struct LargeTransactionCostTests {
    enum KeyOrder: String, CaseIterable { case random, ascending, descending }

    static func keys(_ count: Int, _ order: KeyOrder, seed: UInt64) -> [[UInt8]] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { i -> [UInt8] in
            switch order {
            case .random: return (0..<2).flatMap { _ in withUnsafeBytes(of: rng.next()) { Array($0) } }
            case .ascending: return withUnsafeBytes(of: UInt64(i).bigEndian) { Array($0) }
            case .descending: return withUnsafeBytes(of: UInt64(count - i).bigEndian) { Array($0) }
            }
        }
    }

    /// n · log2(n), the bound's unit.
    static func nLogN(_ n: Int) -> Int { n * (Int.bitWidth - n.leadingZeroBitCount) }

    @Test(arguments: KeyOrder.allCases)
    func aLargeTransactionsOrderingWorkIsNLogN(order: KeyOrder) throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("big.firn"))
        defer { store.close() }
        let count = 200_000
        let keys = Self.keys(count, order, seed: 7)
        let changes = LogChangeSet(base: try store.snapshot())
        try changes.createTree("t")
        let value: [UInt8] = [1, 2, 3]
        for key in keys {
            _ = try withBytes(key) { (k) throws(FirnError) in
                try withBytes(value) { (v) throws(FirnError) in try changes.put("t", k, v) }
            }
        }
        let payload = changes.payload()
        // The sort's comparisons (≤ n log2 n), one pass to read the order out.
        #expect(changes.orderingWork <= 2 * Self.nLogN(count), "\(order): \(changes.orderingWork) for \(count) puts")
        // What a sorted array moved for the same puts: about n²/4 for
        // random keys, n²/2 descending. The bound above is far below.
        if order != .ascending { #expect(changes.orderingWork * 1000 < count * count / 4) }
        let operations = try payload.withUnsafeBytes { try LogPayload.operations($0, geometry: store.geometry).get() }
        let put = operations.compactMap { op -> [UInt8]? in
            if case let .put(_, key, _) = op { return key }
            return nil
        }
        #expect(put == keys.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// A cursor read between puts (a list's append reads its end) sees every
    /// put before it, through the sorted copy kept up to date one key at a
    /// time and past `incrementalInserts` rebuilt by a merge.
    @Test func cursorsBetweenPutsSeeEveryPut() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("mixed.firn"))
        defer { store.close() }
        let changes = LogChangeSet(base: try store.snapshot())
        try changes.createTree("t")
        var model: [[UInt8]: [UInt8]] = [:]
        var rng = SeededGenerator(seed: 3)
        // Runs of puts between reads, shorter and longer than what the
        // sorted copy takes one at a time.
        for run in [1, 2, 5, LogEntryTable.incrementalInserts, LogEntryTable.incrementalInserts + 1, 40, 1, 3, 200, 0] {
            for _ in 0..<run {
                // Some keys again, to replace their values in the sorted copy.
                let key: [UInt8] = model.isEmpty || rng.below(4) != 0
                    ? [UInt8(truncatingIfNeeded: rng.next()), UInt8(truncatingIfNeeded: rng.next())]
                    : model.keys.sorted { $0.lexicographicallyPrecedes($1) }[Int(rng.below(UInt64(model.count)))]
                let value = [UInt8(truncatingIfNeeded: rng.next())]
                if rng.below(5) == 0, model[key] != nil {
                    _ = try withBytes(key) { (k) throws(FirnError) in try changes.delete("t", k) }
                    model[key] = nil
                } else {
                    _ = try withBytes(key) { (k) throws(FirnError) in
                        try withBytes(value) { (v) throws(FirnError) in try changes.put("t", k, v) }
                    }
                    model[key] = value
                }
            }
            let walked = try #require(try changes.cursor("t", owner: store)).allEntries()
            let expected = model.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            #expect(walked.map(\.key) == expected.map(\.key), "after a run of \(run)")
            #expect(walked.map(\.value) == expected.map(\.value), "after a run of \(run)")
            #expect(try changes.count("t") == UInt64(model.count))
        }
        // The created tree's frame carries no deletions of keys it put and removed.
        let operations = try changes.payload().withUnsafeBytes { try LogPayload.operations($0, geometry: store.geometry).get() }
        #expect(!operations.contains { if case .delete = $0 { return true } else { return false } })
        #expect(operations.last == .count(tree: "t", entries: UInt64(model.count)))
    }

    /// The sort compares keys' first 8 bytes as numbers and reads the keys
    /// only on a tie: keys that share those bytes, keys shorter than 8
    /// bytes against their zero-padded selves ([0x61] and [0x61, 0]), and
    /// the empty key still come out in byte order, whether put in one run
    /// or in runs merged between cursor reads.
    @Test(arguments: [false, true])
    func keysSharingTheirFirstEightBytesSortByAllTheirBytes(readBetweenRuns: Bool) throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("ties.firn"))
        defer { store.close() }
        let changes = LogChangeSet(base: try store.snapshot())
        try changes.createTree("t")
        let shared: [UInt8] = Array("prefix!!".utf8)
        var keys: [[UInt8]] = [[], [0], [0, 0], [0x61], [0x61, 0], [0x61, 0, 0, 0, 0, 0, 0, 0], [0x61, 0, 0, 0, 0, 0, 0, 0, 0],
                               [0x61, 0, 0, 0, 0, 0, 0, 1], [0xFF], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                               shared, Array(shared.dropLast())]
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<300 { keys.append(shared + (0..<Int(rng.below(4))).map { _ in UInt8(truncatingIfNeeded: rng.next() % 4) }) }
        keys.shuffle(using: &rng)
        var unique: [[UInt8]: Int] = [:]
        for (i, key) in keys.enumerated() {
            unique[key] = i
            _ = try withBytes(key) { (k) throws(FirnError) in
                try withBytes([UInt8(i & 0xFF)]) { (v) throws(FirnError) in try changes.put("t", k, v) }
            }
            if readBetweenRuns && i % 37 == 0 { _ = try changes.cursor("t", owner: store) }
        }
        let walked = try #require(try changes.cursor("t", owner: store)).allEntries()
        #expect(walked.map(\.key) == unique.keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(try changes.count("t") == UInt64(unique.count))
    }
}
