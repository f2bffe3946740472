import Testing
@testable import FirnCore
import FirnTestSupport

/// The trees against a model: a sorted dictionary per tree, under long
/// random sequences of put, delete, commit and rollback, with snapshots
/// held along the way that must keep reading exactly their version.
@Suite struct TreeModelTests {
    static func key(_ n: Int, _ rng: inout SeededGenerator) -> [UInt8] {
        // Variable-length keys sharing prefixes, some long.
        let length = [4, 8, 16, 40, 200][Int(rng.next() % 5)]
        var key = Array("k\(n)-".utf8)
        while key.count < length { key.append(UInt8(truncatingIfNeeded: n &* 31 &+ key.count)) }
        return key
    }

    static func value(_ rng: inout SeededGenerator) -> [UInt8] {
        let sizes = [0, 1, 10, 100, 900, 5000, 20000]
        let size = sizes[Int(rng.next() % UInt64(sizes.count))]
        return (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func expectMatches(_ snapshot: Snapshot, _ model: [String: [[UInt8]: [UInt8]]]) throws {
        #expect(try snapshot.treeNames().sorted() == model.keys.sorted())
        for (name, entries) in model {
            let tree = try #require(try snapshot.tree(name))
            #expect(tree.count == UInt64(entries.count), "count of \(name) at v\(snapshot.version)")
            let cursor = tree.cursor()
            try cursor.first()
            var walked: [[UInt8]] = []
            while cursor.isValid {
                let key = try #require(try cursor.key)
                walked.append(key)
                #expect(try cursor.value == entries[key], "value of a key in \(name) at v\(snapshot.version)")
                try cursor.next()
            }
            let sorted = entries.keys.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(walked == sorted, "ordered walk of \(name) at v\(snapshot.version)")
            for key in sorted.prefix(50) {
                #expect(try tree.get(key)?.array == entries[key])
            }
            // Backwards.
            try cursor.last()
            var back: [[UInt8]] = []
            while cursor.isValid, back.count < 30 {
                back.append(try #require(try cursor.key))
                try cursor.previous()
            }
            #expect(back == Array(sorted.reversed().prefix(30)))
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomOperationsMatchTheModelAndSnapshotsKeepTheirVersion(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("model.firn"))
        var rng = SeededGenerator(seed: seed)
        var committed: [String: [[UInt8]: [UInt8]]] = [:]
        var held: [(Snapshot, [String: [[UInt8]: [UInt8]]])] = []
        let names = ["alpha", "beta", "gamma"]
        for round in 0..<60 {
            let txn = try store.beginWriteBlocking()
            var working = committed
            for _ in 0..<Int(rng.next() % 200) {
                let name = names[Int(rng.next() % 3)]
                let tree = try #require(try txn.tree(name))
                if working[name] == nil { working[name] = [:] }
                let n = Int(rng.next() % 400)
                let key = Self.key(n, &rng)
                switch rng.next() % 10 {
                case 0..<6:
                    let value = Self.value(&rng)
                    let isNew = try tree.put(key, value)
                    #expect(isNew == (working[name]?[key] == nil))
                    working[name]?[key] = value
                case 6..<9:
                    let removed = try tree.delete(key)
                    #expect(removed == (working[name]?[key] != nil))
                    working[name]?[key] = nil
                default:
                    #expect(try tree.get(key) == working[name]?[key])
                }
            }
            if round % 17 == 16, let name = working.keys.sorted().first {
                #expect(try txn.dropTree(name))
                working[name] = nil
            }
            if rng.next() % 5 == 0 {
                txn.abort()
            } else {
                try txn.commit()
                committed = working
                let latest = try store.snapshot()
                let report = Verifier.verify(latest, slots: try store.readSlots())
                #expect(report.findings == [], "verify after round \(round)")
                latest.close()
            }
            if rng.next() % 4 == 0 {
                held.append((try store.snapshot(label: "round \(round)"), committed))
            }
            if held.count > 5 {
                let (old, model) = held.removeFirst()
                try Self.expectMatches(old, model)
                old.close()
            }
        }
        for (snapshot, model) in held { try Self.expectMatches(snapshot, model) }
        try Self.expectMatches(try store.snapshot(), committed)
        store.close()
        // Reopen: the last committed version, intact.
        let reopened = try Store.open(dir.file("model.firn"))
        try Self.expectMatches(try reopened.snapshot(), committed)
    }
}
