import Testing
@testable import FirnCore
import FirnTestSupport

/// Creating and dropping trees inside one write transaction, in every
/// order: what commits is what the transaction last saw, the catalog
/// verifies clean, and a reopened store reads the same.
@Suite struct TreeLifecycleTests {
    typealias Model = [String: [[UInt8]: [UInt8]]]

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A store whose tree "t" holds `count` entries (some with overflow
    /// values) and whose tree "keep" holds one.
    static func seeded(_ dir: TemporaryDirectory, count: Int = 300) throws -> Store {
        let store = try Store.open(dir.file("lifecycle.firn"))
        try store.write { txn in
            let t = try #require(try txn.tree("t"))
            for i in 0..<count {
                try t.put(bytes("old:\(i)"), i % 50 == 0 ? [UInt8](repeating: UInt8(i % 256), count: 6000) : bytes("v\(i)"))
            }
            try #require(try txn.tree("keep")).put(bytes("k"), bytes("v"))
        }
        return store
    }

    static func model(of snapshot: Snapshot) throws -> Model {
        var out: Model = [:]
        for name in try snapshot.treeNames() {
            let tree = try #require(try snapshot.tree(name))
            var entries: [[UInt8]: [UInt8]] = [:]
            let cursor = tree.cursor()
            try cursor.first()
            while cursor.isValid {
                entries[try #require(try cursor.key)] = try cursor.value
                try cursor.next()
            }
            #expect(tree.count == UInt64(entries.count), "catalog count of \(name) at v\(snapshot.version)")
            out[name] = entries
        }
        return out
    }

    /// The latest version matches `model` and verifies clean; so does the
    /// file after a reopen.
    static func expectCommitted(_ store: Store, _ model: Model, reopen: Bool = true,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snapshot = try store.snapshot()
        #expect(try Self.model(of: snapshot) == model, sourceLocation: sourceLocation)
        let report = Verifier.verify(snapshot, slots: try store.readSlots())
        #expect(report.findings == [], sourceLocation: sourceLocation)
        snapshot.close()
        guard reopen else { return }
        let path = store.path
        store.close()
        let again = try Store.open(path)
        defer { again.close() }
        let reopened = try again.snapshot()
        #expect(try Self.model(of: reopened) == model, "after reopen", sourceLocation: sourceLocation)
        #expect(Verifier.verify(reopened, slots: try again.readSlots()).findings == [], "after reopen",
                sourceLocation: sourceLocation)
    }

    @Test func dropCreatePutDropInOneTransactionDropsTheTree() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.seeded(dir)
        try store.write { txn in
            #expect(try txn.dropTree("t"))
            try #require(try txn.tree("t")).put(Self.bytes("new"), Self.bytes("x"))
            #expect(try txn.dropTree("t"))
            #expect(try txn.tree("t", create: false) == nil)
            #expect(try txn.treeNames() == ["keep"])
        }
        try Self.expectCommitted(store, ["keep": [Self.bytes("k"): Self.bytes("v")]])
    }

    @Test func dropCreatePutDropBesideOtherChangesLeavesNoStaleCatalogEntry() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.seeded(dir)
        try store.write { txn in
            try #require(try txn.tree("keep")).put(Self.bytes("k2"), Self.bytes("v2"))
            #expect(try txn.dropTree("t"))
            try #require(try txn.tree("t")).put(Self.bytes("new"), [UInt8](repeating: 9, count: 7000))
            #expect(try txn.dropTree("t"))
        }
        try Self.expectCommitted(store, ["keep": [Self.bytes("k"): Self.bytes("v"), Self.bytes("k2"): Self.bytes("v2")]])
    }

    @Test func dropThenCreateWithDataReplacesTheTree() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.seeded(dir)
        try store.write { txn in
            #expect(try txn.dropTree("t"))
            let t = try #require(try txn.tree("t"))
            #expect(t.count == 0)
            #expect(try t.get(Self.bytes("old:1")) == nil)
            try t.put(Self.bytes("new"), Self.bytes("x"))
            try t.put(Self.bytes("big"), [UInt8](repeating: 3, count: 9000))
        }
        try Self.expectCommitted(store, [
            "keep": [Self.bytes("k"): Self.bytes("v")],
            "t": [Self.bytes("new"): Self.bytes("x"), Self.bytes("big"): [UInt8](repeating: 3, count: 9000)],
        ])
    }

    @Test func dropThenCreateEmptyLeavesAnEmptyTree() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.seeded(dir)
        try store.write { txn in
            #expect(try txn.dropTree("t"))
            _ = try #require(try txn.tree("t"))
        }
        try Self.expectCommitted(store, ["keep": [Self.bytes("k"): Self.bytes("v")], "t": [:]])
    }

    @Test(arguments: [false, true])
    func createDropCreateKeepsOnlyTheLastTree(existedBefore: Bool) throws {
        let dir = try TemporaryDirectory()
        let store = existedBefore ? try Self.seeded(dir) : try Store.open(dir.file("fresh.firn"))
        try store.write { txn in
            try #require(try txn.tree("t")).put(Self.bytes("first"), [UInt8](repeating: 1, count: 5000))
            #expect(try txn.dropTree("t"))
            try #require(try txn.tree("t")).put(Self.bytes("second"), Self.bytes("2"))
        }
        var model: Model = ["t": [Self.bytes("second"): Self.bytes("2")]]
        if existedBefore { model["keep"] = [Self.bytes("k"): Self.bytes("v")] }
        try Self.expectCommitted(store, model)
    }

    @Test func aHandleToADroppedTreeIsRefusedInsteadOfLeakingPages() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.seeded(dir)
        try store.write { txn in
            let old = try #require(try txn.tree("t"))
            #expect(try txn.dropTree("t"))
            #expect(throws: FirnError.self) { try old.put(Self.bytes("late"), [UInt8](repeating: 5, count: 8000)) }
            #expect(throws: FirnError.self) { try old.get(Self.bytes("old:1")) }
            let fresh = try #require(try txn.tree("t"))
            #expect(throws: FirnError.self) { try old.delete(Self.bytes("old:1")) }
            try fresh.put(Self.bytes("a"), Self.bytes("b"))
        }
        try Self.expectCommitted(store, ["keep": [Self.bytes("k"): Self.bytes("v")], "t": [Self.bytes("a"): Self.bytes("b")]])
    }

    /// Random create / put / delete / drop sequences on a few names against
    /// a dictionary model, committed or aborted, verified after each commit
    /// and once more after a reopen.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func randomCreatePutDropSequencesMatchADictionaryModel(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("model.firn")
        var store = try Store.open(path)
        defer { store.close() }
        var rng = SeededGenerator(seed: seed)
        let names = ["a", "b", "c"]
        var committed: Model = [:]
        for round in 0..<40 {
            let txn = try store.beginWriteBlocking()
            var working = committed
            for _ in 0..<rng.below(14) {
                let name = names[Int(rng.below(UInt64(names.count)))]
                let key = Self.bytes("key\(rng.below(12))")
                switch rng.below(10) {
                case 0:
                    let tree = try #require(try txn.tree(name))
                    if working[name] == nil { working[name] = [:] }
                    #expect(tree.count == UInt64(working[name]?.count ?? 0), "seed \(seed) round \(round): count of \(name)")
                case 1..<5:
                    let value: [UInt8] = [[], Self.bytes("v\(round)"), [UInt8](repeating: UInt8(round), count: 5000)][
                        Int(rng.below(3))]
                    let isNew = try #require(try txn.tree(name)).put(key, value)
                    #expect(isNew == (working[name]?[key] == nil), "seed \(seed) round \(round): put into \(name)")
                    working[name, default: [:]][key] = value
                case 5:
                    let removed = try txn.tree(name, create: false)?.delete(key) ?? false
                    #expect(removed == (working[name]?[key] != nil), "seed \(seed) round \(round): delete from \(name)")
                    working[name]?[key] = nil
                case 6..<9:
                    let dropped = try txn.dropTree(name)
                    #expect(dropped == (working[name] != nil), "seed \(seed) round \(round): drop \(name)")
                    working[name] = nil
                default:
                    let tree = try txn.tree(name, create: false)
                    #expect((tree == nil) == (working[name] == nil), "seed \(seed) round \(round): lookup \(name)")
                    #expect(try tree?.get(key) == working[name]?[key])
                }
            }
            #expect(try txn.treeNames() == working.keys.sorted(), "seed \(seed) round \(round): names")
            if rng.chance(1, in: 5) {
                txn.abort()
            } else {
                try txn.commit()
                committed = working
                try Self.expectCommitted(store, committed, reopen: false)
            }
            if round % 10 == 9 {
                store.close()
                store = try Store.open(path)
            }
        }
        try Self.expectCommitted(store, committed)
        store = try Store.open(path)
    }
}
