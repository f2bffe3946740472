import Testing
@testable import FirnCore
import FirnTestSupport

/// A write transaction's changes as the commit log carries them
/// (`LogChangeSet`): while the transaction runs, every read sees its own
/// changes over the base version; its payload, applied as the next frame,
/// reads exactly as the transaction left things.
@Suite struct CommitLogChangeSetTests {
    typealias Model = LogOverlayHarness.Model
    static let trees = LogOverlayHarness.trees

    /// Every read of the change set against `model`.
    static func expectReads(_ changes: LogChangeSet, _ model: Model, base: Model, owner: AnyObject, _ context: String) throws {
        #expect(try changes.treeNames() == model.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "\(context)")
        for name in trees {
            guard let entries = model[name] else {
                #expect(try !changes.exists(name), "\(name) \(context)")
                #expect(try changes.cursor(name, owner: owner) == nil)
                continue
            }
            #expect(try changes.count(name) == UInt64(entries.count), "count of \(name) \(context)")
            let sorted = LogOverlayHarness.sortedKeys(entries)
            // Keys the base version has and the transaction removed (or
            // hid by dropping the tree) read as absent.
            for key in (base[name] ?? [:]).keys where entries[key] == nil {
                #expect(try withBytes(key) { (k) throws(FirnError) in try changes.get(name, k) } == nil, "\(key) in \(name) \(context)")
            }
            for key in sorted {
                let stored = try key.withUnsafeBytes { (k) throws(FirnError) in try changes.get(name, k) }
                guard case let .inline(bytes)? = stored else {
                    // Values of the checkpoint's overflow chains.
                    if case let .overflow(head, length)? = stored {
                        #expect(try changes.base.source.readOverflow(head, length: length) == entries[key])
                    } else {
                        Issue.record("\(key) missing in \(name) \(context)")
                    }
                    continue
                }
                #expect(Array(bytes) == entries[key], "get in \(name) \(context)")
            }
            let cursor = try #require(try changes.cursor(name, owner: owner))
            var walked: [[UInt8]] = []
            try cursor.first()
            while cursor.isValid {
                let key = try #require(try cursor.key)
                #expect(try cursor.value == entries[key])
                walked.append(key)
                try cursor.next()
            }
            #expect(walked == sorted, "walk of \(name) \(context)")
            walked = []
            try cursor.last()
            while cursor.isValid {
                walked.append(try #require(try cursor.key))
                try cursor.previous()
            }
            #expect(walked == sorted.reversed(), "backward walk of \(name) \(context)")
        }
    }

    @Test(arguments: [11, 12, 13]) func transactionsReadTheirChangesAndTheirFramesReadAlike(seed: UInt64) throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        var rng = SeededGenerator(seed: seed)
        // Some frames first, so transactions build on log versions too.
        for _ in 0..<3 { try harness.commit(LogOverlayHarness.randomChanges(&rng)) }
        for transaction in 0..<12 {
            let base = harness.snapshot(harness.overlay)
            let changes = LogChangeSet(base: base)
            var model = harness.model
            #expect(changes.isEmpty)
            for step in 0..<(1 + Int(rng.below(25))) {
                let tree = Self.trees[Int(rng.below(UInt64(Self.trees.count)))]
                switch rng.below(20) {
                case 0:
                    #expect(try changes.dropTree(tree) == (model[tree] != nil))
                    model[tree] = nil
                case 1, 2:
                    #expect(try changes.createTree(tree) == (model[tree] == nil))
                    if model[tree] == nil { model[tree] = [:] }
                case 3...7:
                    guard model[tree] != nil else { continue }
                    let key = LogOverlayHarness.key(&rng)
                    let removed = try key.withUnsafeBytes { (k) throws(FirnError) in try changes.delete(tree, k) }
                    #expect(removed == (model[tree]?[key] != nil))
                    model[tree]?[key] = nil
                default:
                    guard model[tree] != nil else { continue }
                    let key = LogOverlayHarness.key(&rng), value = LogOverlayHarness.value(&rng)
                    let added = try withBytes(key) { (k) throws(FirnError) in
                        try withBytes(value) { (v) throws(FirnError) in try changes.put(tree, k, v) }
                    }
                    #expect(added == (model[tree]?[key] == nil))
                    model[tree]?[key] = value
                }
                if step % 5 == 0 { try Self.expectReads(changes, model, base: harness.model, owner: base, "txn \(transaction) step \(step)") }
            }
            try Self.expectReads(changes, model, base: harness.model, owner: base, "txn \(transaction) at its end")
            let (_, snapshot) = try harness.commit(payload: changes.payload(), model: model)
            try LogOverlayHarness.expectReads(snapshot, model, &rng)
        }
    }

    @Test func aTransactionThatChangesNothingHasAnEmptyPayload() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        let changes = LogChangeSet(base: harness.snapshot(harness.overlay))
        #expect(try !changes.dropTree("missing"))
        #expect(try [9].withUnsafeBytes { (k) throws(FirnError) in try changes.delete("a", k) } == false)
        #expect(changes.isEmpty)
        #expect(changes.payload().isEmpty)
    }

    @Test func dropThenCreateEncodesBothAndHidesTheBase() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        let changes = LogChangeSet(base: harness.snapshot(harness.overlay))
        try changes.dropTree("a")
        try changes.createTree("a")
        // The base's keys are gone with its tree: absent, and new when put again.
        let baseKeys = LogOverlayHarness.sortedKeys(harness.model["a"] ?? [:])
        #expect(!baseKeys.isEmpty)
        for key in baseKeys {
            #expect(try withBytes(key) { (k) throws(FirnError) in try changes.get("a", k) } == nil)
        }
        #expect(try changes.count("a") == 0)
        let one: [UInt8] = [1], two: [UInt8] = [2]
        _ = try withBytes(one) { (k) throws(FirnError) in try withBytes(two) { (v) throws(FirnError) in try changes.put("a", k, v) } }
        // A tree new in this transaction, created then dropped: no trace.
        try changes.createTree("new")
        try changes.dropTree("new")
        let operations = changes.payload().withUnsafeBytes { LogPayload.operations($0, geometry: harness.store.geometry) }
        #expect(operations == .success([.dropTree("a"), .createTree("a"), .put(tree: "a", key: [1], value: [2]), .count(tree: "a", entries: 1)]))
        var model = harness.model
        model["a"] = [[1]: [2]]
        let (_, snapshot) = try harness.commit(payload: changes.payload(), model: model)
        var rng = SeededGenerator(seed: 1)
        try LogOverlayHarness.expectReads(snapshot, model, &rng)
    }
}
