import Testing
@testable import FirnCore
import FirnTestSupport

/// `MutableTree.delete(sortedKeys:)`, which a reclaim uses for each batch
/// of retired entries: one descent per leaf, the same result as deleting
/// the keys one by one, and a missing key reported without deleting past it.
@Suite struct SortedDeleteTests {
    static func key(_ i: Int) -> [UInt8] { Array(String(format: "k%06d", i).utf8) }

    /// A store whose tree "t" holds keys 0..<n (values long enough for many leaves).
    static func store(_ dir: TemporaryDirectory, keys n: Int) throws -> Store {
        var options = StoreOptions.pageCommits
        options.durability = .none
        let store = try Store.open(dir.file("sorted-delete.firn"), options: options)
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<n { try tree.put(Self.key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 60)) }
        }
        return store
    }

    static func keys(_ store: Store) throws -> [[UInt8]] {
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        var out: [[UInt8]] = []
        let cursor = try #require(try snapshot.tree("t")).cursor()
        try cursor.first()
        while cursor.isValid, let key = try cursor.key {
            out.append(key)
            try cursor.next()
        }
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
        return out
    }

    @Test func keysSpanningManyLeavesAreAllDeleted() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir, keys: 2000)
        // Runs inside one leaf, runs across leaf boundaries, and strays.
        let doomed = Array(100..<400) + [401, 777, 778, 1500] + Array(1800..<2000)
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            #expect(try #require(tree.tree).delete(sortedKeys: doomed.map(Self.key)) == nil)
        }
        let left = Set(0..<2000).subtracting(doomed).sorted()
        #expect(try Self.keys(store) == left.map(Self.key))
    }

    @Test func aMissingKeyIsReportedAndNothingAfterItIsDeleted() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir, keys: 1000)
        for (present, missing) in [(Array(10..<20), "k000015x"), (Array(10..<20), "k000999x"), ([], "a")] {
            let numbers = present + [500]
            var asked = numbers.map(Self.key) + [Array(missing.utf8)]
            asked.sort { $0.lexicographicallyPrecedes($1) }
            let expectedDeleted = numbers.filter { Self.key($0).lexicographicallyPrecedes(Array(missing.utf8)) }
            let before = try Self.keys(store)
            try store.write { txn in
                let tree = try #require(try txn.tree("t"))
                #expect(try #require(tree.tree).delete(sortedKeys: asked).map { asked[$0] } == Array(missing.utf8))
            }
            let gone = Set(expectedDeleted.map(Self.key))
            #expect(try Self.keys(store) == before.filter { !gone.contains($0) })
            // Put back what went, for the next case.
            try store.write { txn in
                let tree = try #require(try txn.tree("t"))
                for i in expectedDeleted { try tree.put(Self.key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 60)) }
            }
        }
    }
}
