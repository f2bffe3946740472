import Testing
@testable import FirnCore
import FirnTestSupport

/// Splits of full nodes: whatever the sizes of the cells already in a page
/// and of the one being added, both halves fit after the split and the
/// insert (each cell is at most a third of a page, so a split that counts
/// the new cell always finds such a cut).
@Suite struct NodeSplitTests {
    static func options() -> StoreOptions {
        var options = StoreOptions()
        options.durability = .none
        return options
    }

    @Test func aLargeCellAddedToAFullLeafWhoseUpperHalfIsLargeFits() throws {
        // One leaf: small cells, a maximal cell, small cells, a large cell;
        // a byte-halving split that ignored the new maximal cell would give
        // it a right half of 2,774 bytes, with no room for its 1,354.
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("split.firn"), options: Self.options())
        var expected: [[UInt8]: [UInt8]] = [:]
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            func put(_ key: String, _ length: Int) throws {
                let value = [UInt8](repeating: UInt8(length & 0xFF), count: length)
                try tree.put(Array(key.utf8), value)
                expected[Array(key.utf8)] = value
            }
            for i in 0..<10 { try put("a00\(i)", 90) }
            try put("b000", 1340)
            for i in 0..<4 { try put("c00\(i)", 90) }
            try put("d000", 990)
            try put("e000", 1340)
        }
        let snapshot = try store.snapshot()
        let tree = try #require(try snapshot.tree("t"))
        for (key, value) in expected { #expect(try tree.get(key)?.array == value) }
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func cellsOfEverySizeUpToTheLimitAlwaysFitAfterASplit(seed: UInt64) throws {
        // Keys up to the 1 KiB limit (so branch cells are large too) and
        // inline values up to the largest cell, in random order.
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("sizes.firn"), options: Self.options())
        let geometry = PageGeometry(pageSize: store.pageSize)
        var rng = SeededGenerator(seed: seed)
        var expected: [[UInt8]: [UInt8]] = [:]
        for _ in 0..<6 {
            try store.write { txn in
                let tree = try #require(try txn.tree("t"))
                for _ in 0..<300 {
                    let keyLength = [4, 16, 300, 700, geometry.maxKeyLength][Int(rng.below(5))]
                    var key = (0..<keyLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    key[0] = UInt8(truncatingIfNeeded: rng.below(8))
                    let room = geometry.maxCellFootprint - 2 - LeafLayout.cellHeaderSize - keyLength
                    let valueLength = max(0, [0, room / 2, room][Int(rng.below(3))])
                    let value = [UInt8](repeating: UInt8(truncatingIfNeeded: valueLength), count: valueLength)
                    try tree.put(key, value)
                    expected[key] = value
                }
            }
            let snapshot = try store.snapshot()
            #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
            let tree = try #require(try snapshot.tree("t"))
            #expect(tree.count == UInt64(expected.count))
            for (key, value) in expected.prefix(200) { #expect(try tree.get(key)?.array == value) }
        }
    }

    /// Keys put in ascending order past the tree's last key leave every
    /// leaf but the last full (the full leaf stays, the key starts the next
    /// one): a load in key order, and every checkpoint of the commit log,
    /// which replays its entries sorted, made leaves half empty for good
    /// when each split halved them. A key put anywhere else still halves:
    /// keys in random order through page commits fill leaves about 70 %.
    @Test(arguments: [(ascending: true, log: false), (ascending: false, log: false), (ascending: false, log: true)])
    func ascendingPutsFillTheirLeavesAndOthersHalveThem(_ order: (ascending: Bool, log: Bool)) throws {
        let dir = try TemporaryDirectory()
        var options = order.log ? Self.options() : StoreOptions.pageCommits
        options.durability = .none
        let store = try Store.open(dir.file("fill.firn"), options: options)
        var keys = (0..<5_000).map { i -> [UInt8] in
            var key = Array("key-".utf8)
            withUnsafeBytes(of: UInt32(i).bigEndian) { key.append(contentsOf: $0) }
            return key
        }
        if !order.ascending {
            var rng = SeededGenerator(seed: 11)
            keys.shuffle(using: &rng)
        }
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for key in keys { try tree.put(key, [UInt8](repeating: 3, count: 100)) }
        }
        let snapshot = try store.snapshot()
        let root = try #require(try snapshot.tree("t")).entry.root
        var visited: Set<UInt64> = []
        var leaves: [PageSummary] = []
        try snapshot.walkPages(root: root, tree: "t", visited: &visited) { if $0.level == 0 { leaves.append($0) } }
        let capacity = store.geometry.capacity
        let fill = Double(leaves.dropLast().map(\.usedBytes).reduce(0, +)) / Double((leaves.count - 1) * capacity)
        if order.ascending || order.log {
            #expect(leaves.dropLast().allSatisfy { $0.usedBytes > capacity - 120 }, "fill \(fill) over \(leaves.count) leaves")
        } else {
            #expect(fill < 0.85, "fill \(fill) over \(leaves.count) leaves")
        }
        #expect(try snapshot.tree("t")?.count == 5_000)
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
    }

    /// Keys put in ascending order (a bulk import, a commit log's sorted
    /// replay) leave full branches as they leave full leaves: a full branch
    /// on the rightmost path stays full and the new child starts a branch to
    /// its right. Halving them left every branch of such a tree half empty,
    /// twice the branch pages a lookup walks through. Later puts in the
    /// middle split those full branches as usual.
    @Test func anAscendingLoadLeavesFullBranches() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("ascending.firn"), options: Self.options())
        func key(_ i: Int) -> [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: (i * 2) >> (8 * (15 - $0))) } }
        let count = 100_000
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<count { try tree.put(key(i), [UInt8](repeating: UInt8(i % 251), count: 20)) }
        }
        var report = Verifier.verify(try store.snapshot(), slots: try store.readSlots())
        #expect(report.findings == [])
        let shape = try #require(report.trees.first { $0.name == "t" })
        // About 100 separators fit a branch: full branches give about one
        // branch page per 100 leaves, halved ones one per 50.
        #expect(shape.branchPages * 70 < shape.leafPages, "\(shape.branchPages) branches over \(shape.leafPages) leaves")

        // Keys between the loaded ones split the full branches.
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in stride(from: 1, to: 2 * count, by: 13) { try tree.put(Self.odd(i), [2]) }
        }
        let snapshot = try store.snapshot()
        report = Verifier.verify(snapshot, slots: try store.readSlots())
        #expect(report.findings == [])
        let tree = try #require(try snapshot.tree("t"))
        for i in stride(from: 0, to: count, by: 997) { #expect(try tree.get(key(i)) != nil) }
        for i in stride(from: 1, to: 2 * count, by: 13) { #expect(try tree.get(Self.odd(i))?.array == [2]) }
    }

    /// The 16-byte key of odd number `i` (between the ascending load's keys).
    static func odd(_ i: Int) -> [UInt8] {
        let n = i | 1
        return (0..<16).map { UInt8(truncatingIfNeeded: n >> (8 * (15 - $0))) }
    }
}
