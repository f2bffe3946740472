import Testing
@testable import FirnCore
import FirnTestSupport

/// Reading versions between checkpoints (docs/COMMIT-PATH.md, "The commit
/// log"): the frames' changes laid over the checkpoint's trees must read
/// exactly as a model of every version says, through every read a snapshot
/// offers: names, counts, point lookups, and cursors walked forward,
/// backward, from seeks and turning round.
@Suite struct CommitLogOverlayTests {
    typealias Model = LogOverlayHarness.Model

    @Test(arguments: [1, 2, 3, 4]) func readsMatchTheModelAtEveryVersion(seed: UInt64) throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        var rng = SeededGenerator(seed: seed)
        var made: [(Snapshot, Model)] = [(harness.snapshot(harness.overlay), harness.model)]
        for _ in 0..<40 {
            let (_, snapshot) = try harness.commit(LogOverlayHarness.randomChanges(&rng))
            try LogOverlayHarness.expectReads(snapshot, harness.model, &rng)
            made.append((snapshot, harness.model))
        }
        // Older versions still read as they were, with later links made.
        for (snapshot, model) in made { try LogOverlayHarness.expectReads(snapshot, model, &rng) }
    }

    /// Point lookups search a version's runs (no merged run is built for
    /// them); runs stay about log2 of the entries, and each version keeps
    /// its own view while later frames overwrite its keys.
    @Test func lookupsSearchAFewRunsNewestFirst() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        var rng = SeededGenerator(seed: 11)
        var made: [(LogOverlayVersion, Snapshot, Model)] = []
        for n in 0..<600 {
            // New keys mostly, some overwritten and deleted: newest must win.
            let key = [UInt8(truncatingIfNeeded: rng.below(n % 3 == 0 ? 40 : 250)), UInt8(n % 5)]
            let change: LogOverlayHarness.Change = rng.chance(1, in: 8) ? .delete("b", key) : .put("b", key, [UInt8(n & 0xFF), 1])
            let (link, snapshot) = try harness.commit([change])
            #expect(link.runs(of: "b").count <= 11, "\(link.runs(of: "b").count) runs after \(n + 1) frames")
            made.append((link, snapshot, harness.model))
        }
        for (link, snapshot, model) in made.enumerated().filter({ $0.offset % 37 == 0 || $0.offset == 599 }).map(\.element) {
            let tree = try #require(try snapshot.tree("b"))
            for first in 0..<250 {
                for second in 0..<5 {
                    let key: [UInt8] = [UInt8(first), UInt8(second)]
                    #expect(try tree.get(key).map { Array($0.bytes) } == model["b"]?[key], "v\(link.version) key \(key)")
                }
            }
            // The merged run (cursors) agrees with the runs.
            let merged = link.entries(of: "b")
            for run in link.runs(of: "b").reversed() {
                for entry in run { #expect(merged.entry(for: entry.key) != nil) }
            }
        }
    }

    @Test func aCheckpointLinkReadsTheCheckpoint() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        let snapshot = harness.snapshot(harness.overlay)
        #expect(snapshot.log == nil)
        #expect(snapshot.version == harness.checkpoint.version)
        var rng = SeededGenerator(seed: 5)
        try LogOverlayHarness.expectReads(snapshot, harness.model, &rng)
    }

    @Test func dropAndCreateInOneFrameHideTheCheckpointsTree() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        let (_, snapshot) = try harness.commit([.drop("a"), .create("a"), .put("a", [1], [2])])
        let tree = try #require(try snapshot.tree("a"))
        #expect(tree.count == 1)
        #expect(tree.entry.root.isNone)
        var rng = SeededGenerator(seed: 6)
        try LogOverlayHarness.expectReads(snapshot, harness.model, &rng)
    }

    // MARK: diffs

    /// `changes(in:since:)` and `treeChanges(since:)` from `old` to `new`
    /// against the models' difference.
    static func expectDiff(from old: (Snapshot, Model), to new: (Snapshot, Model)) throws {
        let context = "v\(old.0.version) → v\(new.0.version)"
        for name in LogOverlayHarness.trees {
            let before = old.1[name] ?? [:], after = new.1[name] ?? [:]
            var expected: [String] = []
            for key in Set(before.keys).union(after.keys).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                switch (before[key], after[key]) {
                case let (nil, value?): expected.append("+\(key)=\(value.count)")
                case (_?, nil): expected.append("-\(key)")
                case let (a?, b?) where a != b: expected.append("~\(key)=\(b.count)")
                default: break
                }
            }
            var reported: [String] = []
            let stats = try new.0.changes(in: name, since: old.0) { (change) throws(FirnError) -> Bool in
                switch change {
                case let .inserted(key, value): reported.append("+\(Array(key))=\(try value.array().count)")
                case let .deleted(key, old):
                    _ = try old.array()
                    reported.append("-\(Array(key))")
                case let .changed(key, was, now):
                    #expect(try was.array() != now.array())
                    reported.append("~\(Array(key))=\(try now.array().count)")
                }
                return true
            }
            #expect(reported == expected, "\(name), \(context)")
            #expect(stats.changes == expected.count && stats.completed, "\(name), \(context)")
        }
        // Trees: created and dropped exactly; every tree whose entries differ reported changed.
        let changes = try new.0.treeChanges(since: old.0)
        for name in LogOverlayHarness.trees {
            let change = changes.first { $0.name == name }
            switch (old.1[name], new.1[name]) {
            case (nil, _?): #expect(change.map { if case .created = $0 { true } else { false } } == true, "\(name), \(context)")
            case (_?, nil): #expect(change.map { if case .dropped = $0 { true } else { false } } == true, "\(name), \(context)")
            case let (a?, b?) where a != b:
                #expect(change.map { if case .changed = $0 { true } else { false } } == true, "\(name), \(context)")
            case (nil, nil): #expect(change == nil, "\(name), \(context)")
            default: break
            }
        }
    }

    @Test(arguments: [7, 8]) func diffsMatchTheModelWithinAndAcrossCheckpoints(seed: UInt64) throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        var rng = SeededGenerator(seed: seed)
        var made: [(Snapshot, Model)] = [(harness.snapshot(harness.overlay), harness.model)]
        for step in 0..<24 {
            if step == 12 {
                try harness.checkpointAgain()
                made.append((harness.snapshot(harness.overlay), harness.model))
            }
            let (_, snapshot) = try harness.commit(LogOverlayHarness.randomChanges(&rng))
            made.append((snapshot, harness.model))
        }
        // Every pair, both ways: same epoch, across the checkpoint, and a checkpoint against a log version.
        for older in made.indices {
            for newer in made.indices where newer != older && (older + newer) % 3 == 0 || newer == older + 1 {
                try Self.expectDiff(from: made[older], to: made[newer])
            }
        }
        // A version against itself: nothing.
        let last = made[made.count - 1]
        try Self.expectDiff(from: last, to: last)
    }

    @Test func aDiffStoppedByItsCallbackSaysSo() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        let old = harness.snapshot(harness.overlay)
        let (_, new) = try harness.commit([.put("a", [0], [1]), .put("a", [0xFF], [2]), .delete("b", Array("k1".utf8) + [1])])
        var seen = 0
        let stats = try new.changes(in: "a", since: old) { _ in
            seen += 1
            return false
        }
        #expect(seen == 1 && !stats.completed)
        // Pages read follow the change: two lookups' worth, not the tree.
        #expect(stats.pagesRead <= 2 * 2)
    }

    // MARK: defects

    static func apply(_ operations: [LogOperation], to link: LogOverlayVersion, version: UInt64? = nil,
                      countLimit: UInt64 = 1_000, existing: Set<String> = ["a"]) -> FirnError? {
        var builder = LogPayload.Builder()
        for operation in operations { builder.append(operation) }
        let frame = LogOverlayHarness.FrameBytes(builder.bytes)
        do {
            _ = try link.applying(payload: frame.bytes, version: version ?? link.version + 1, owner: frame,
                                  geometry: PageGeometry(pageSize: 4096), countLimit: countLimit, page: 77,
                                  checkpointHasTree: { existing.contains($0) })
            return nil
        } catch {
            return error
        }
    }

    @Test func framesThatNoWriterMakesAreRefusedNamingTheVersion() {
        let link = LogOverlayVersion.checkpoint(10)
        let cases: [([LogOperation], String)] = [
            ([.put(tree: "b", key: [1], value: [])], "puts into tree \"b\", which does not exist"),
            ([.delete(tree: "b", key: [1])], "deletes from tree \"b\""),
            ([.dropTree("b")], "drops tree \"b\""),
            ([.createTree("a")], "creates tree \"a\", which exists"),
            ([.count(tree: "b", entries: 0)], "counts tree \"b\""),
            ([.put(tree: "a", key: [1], value: [])], "without giving its count"),
            ([.createTree("b")], "without giving its count"),
            ([.count(tree: "a", entries: 1), .put(tree: "a", key: [1], value: [])], "without giving its count"),
            ([.put(tree: "a", key: [1], value: []), .count(tree: "a", entries: 1_001)], "more than the file's 1000 bytes"),
            ([.dropTree("a"), .put(tree: "a", key: [1], value: [])], "puts into tree \"a\", which does not exist"),
        ]
        for (operations, expected) in cases {
            guard case let .corrupt(_, page, version, detail)? = Self.apply(operations, to: link) else {
                Issue.record("\(operations) was accepted")
                continue
            }
            #expect(page == 77 && version == 11)
            #expect(detail.contains(expected), "\(operations): \(detail)")
        }
        // Out of order, and a payload that does not parse.
        guard case let .corrupt(_, _, _, detail)? = Self.apply([], to: link, version: 13) else {
            Issue.record("a frame out of order was accepted")
            return
        }
        #expect(detail.contains("expected version 11"))
        let garbage = LogOverlayHarness.FrameBytes([9])
        #expect(throws: FirnError.self) {
            try link.applying(payload: garbage.bytes, version: 11, owner: garbage, geometry: PageGeometry(pageSize: 4096),
                              countLimit: 10, checkpointHasTree: { _ in true })
        }
        // A drop then a create then changes is one writer's frame.
        #expect(Self.apply([.dropTree("a"), .createTree("a"), .put(tree: "a", key: [1], value: []), .count(tree: "a", entries: 1),
                            .createTree("b"), .count(tree: "b", entries: 0)], to: link) == nil)
    }
}
