import Testing
@testable import FirnCore
import FirnTestSupport

/// The trees against a model: a sorted dictionary per tree, under long
/// random sequences of put, delete, commit and rollback, with snapshots
/// held along the way that must keep reading exactly their version.
@Suite struct TreeModelTests {
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
                let key = TreeModel.key(n, &rng)
                switch rng.next() % 10 {
                case 0..<6:
                    let value = TreeModel.value(&rng)
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
                try TreeModel.expectMatches(old, model)
                old.close()
            }
        }
        for (snapshot, model) in held { try TreeModel.expectMatches(snapshot, model) }
        try TreeModel.expectMatches(try store.snapshot(), committed)
        store.close()
        // Reopen: the last committed version, intact.
        let reopened = try Store.open(dir.file("model.firn"))
        try TreeModel.expectMatches(try reopened.snapshot(), committed)
    }
}
