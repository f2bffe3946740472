import Testing
@testable import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// Version diffs against a model: the keys inserted, deleted and changed
/// between two pinned versions, exactly and in key order; the cost follows
/// the change (shared subtrees are skipped unread); the catalog's created,
/// dropped and changed trees; early stop; and damaged pages that make a
/// diff throw rather than crash or loop.
@Suite struct VersionDiffTests {
    typealias Entries = [[UInt8]: [UInt8]]
    typealias Model = [String: Entries]

    /// A change with its bytes copied, to compare with the model's.
    enum Seen: Equatable, CustomStringConvertible {
        case inserted([UInt8], [UInt8])
        case deleted([UInt8], [UInt8])
        case changed([UInt8], [UInt8], [UInt8])

        var description: String {
            switch self {
            case let .inserted(k, v): "+\(Self.show(k)) (\(v.count) B)"
            case let .deleted(k, v): "-\(Self.show(k)) (\(v.count) B)"
            case let .changed(k, o, n): "~\(Self.show(k)) (\(o.count) B → \(n.count) B)"
            }
        }

        static func show(_ key: [UInt8]) -> String { String(decoding: key.prefix(12), as: UTF8.self) }
    }

    static func seen(_ change: Change) throws -> Seen {
        switch change {
        case let .inserted(key, value): .inserted(Array(key), try value.array())
        case let .deleted(key, old): .deleted(Array(key), try old.array())
        case let .changed(key, old, new): .changed(Array(key), try old.array(), try new.array())
        }
    }

    /// The changes that turn `old` into `new`, in key order.
    static func modelDiff(_ old: Entries?, _ new: Entries?) -> [Seen] {
        let old = old ?? [:], new = new ?? [:]
        let keys = Set(old.keys).union(new.keys).sorted { $0.lexicographicallyPrecedes($1) }
        return keys.compactMap { key in
            switch (old[key], new[key]) {
            case let (nil, value?): .inserted(key, value)
            case let (value?, nil): .deleted(key, value)
            case let (a?, b?) where a != b: .changed(key, a, b)
            default: nil
            }
        }
    }

    static func diff(_ newer: Snapshot, _ name: String, since older: Snapshot) throws -> ([Seen], DiffStats) {
        var out: [Seen] = []
        var failure: (any Error)? = nil
        let stats = try newer.changes(in: name, since: older) { change in
            do { out.append(try seen(change)) } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        return (out, stats)
    }

    /// The catalog changes computed from each version's own catalog listing.
    static func expectedTreeChanges(_ newer: Snapshot, since older: Snapshot) throws -> [TreeChange] {
        let old = Dictionary(uniqueKeysWithValues: try older.catalog().map { ($0.name, $0.entry) })
        let new = Dictionary(uniqueKeysWithValues: try newer.catalog().map { ($0.name, $0.entry) })
        let names = Set(old.keys).union(new.keys).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return names.compactMap { name in
            switch (old[name], new[name]) {
            case let (nil, entry?): .created(name: name, entry: entry)
            case let (entry?, nil): .dropped(name: name, entry: entry)
            case let (a?, b?) where a != b: .changed(name: name, old: a, new: b)
            default: nil
            }
        }
    }

    static func key(_ n: Int) -> [UInt8] {
        // The length follows n, so a key drawn again is the same key; long
        // keys make branches narrow, so a few thousand keys grow deep trees.
        let length = [4, 8, 16, 40, 200, 600][n % 6]
        var key = Array("k\(n)-".utf8)
        while key.count < length { key.append(UInt8(truncatingIfNeeded: n &* 31 &+ key.count)) }
        return key
    }

    static func value(_ rng: inout SeededGenerator) -> [UInt8] {
        // Inline, and overflow chains of one to three pages.
        let sizes = [0, 1, 10, 100, 900, 3000, 9000]
        let size = sizes[Int(rng.below(UInt64(sizes.count)))]
        return (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func options() -> StoreOptions {
        var options = StoreOptions.pageCommits
        options.durability = .none  // what is diffed does not depend on syncs
        return options
    }

    /// Diffs `newer` against `older` in both directions and the catalogs,
    /// and compares each with the model.
    static func expectDiffsMatch(_ older: (Snapshot, Model), _ newer: (Snapshot, Model), names: [String]) throws {
        let (a, modelA) = older, (b, modelB) = newer
        let context = "v\(a.version) → v\(b.version)"
        for name in names {
            let expected = modelDiff(modelA[name], modelB[name])
            let (forward, stats) = try diff(b, name, since: a)
            #expect(forward == expected, "\(name) \(context): \(forward.prefix(5)) vs \(expected.prefix(5))")
            #expect(stats.changes == expected.count && stats.completed, "\(name) \(context)")
            let (backward, _) = try diff(a, name, since: b)
            #expect(backward == modelDiff(modelB[name], modelA[name]), "\(name) \(context) reversed")
        }
        #expect(try b.treeChanges(since: a) == expectedTreeChanges(b, since: a), "catalog \(context)")
        let presentA = Set(modelA.keys), presentB = Set(modelB.keys)
        let created = try b.treeChanges(since: a).compactMap { if case let .created(n, _) = $0 { n } else { nil } }
        let dropped = try b.treeChanges(since: a).compactMap { if case let .dropped(n, _) = $0 { n } else { nil } }
        #expect(Set(created) == presentB.subtracting(presentA), "created \(context)")
        #expect(Set(dropped) == presentA.subtracting(presentB), "dropped \(context)")
    }

    // MARK: model

    @Test(arguments: [1, 2, 3] as [UInt64])
    func diffsBetweenPinnedVersionsMatchTheModel(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("diff.firn"), options: Self.options())
        var rng = SeededGenerator(seed: seed)
        let names = ["alpha", "beta"]
        var committed: Model = [:]
        var held: [(Snapshot, Model)] = []
        var depths: [String: [Int]] = [:]
        for round in 0..<48 {
            let txn = try store.beginWriteBlocking()
            var working = committed
            // Phases of eight rounds: grow, churn, shrink — trees gain
            // levels, and lose them when most of their keys go at once.
            let phase = (round / 8) % 3
            if phase == 2 && round % 8 == 0 {
                for name in names {
                    guard let tree = try txn.tree(name, create: false) else { continue }
                    for key in (working[name] ?? [:]).keys.sorted(by: { $0.lexicographicallyPrecedes($1) })
                    where !rng.chance(1, in: 20) {
                        try tree.delete(key)
                        working[name]?[key] = nil
                    }
                }
            }
            for _ in 0..<[250, 40, 40][phase] {
                let name = names[Int(rng.below(2))]
                let tree = try #require(try txn.tree(name))
                if working[name] == nil { working[name] = [:] }
                let key = Self.key(Int(rng.below(1500)))
                if rng.below(100) < [10, 40, 60][phase] {
                    try tree.delete(key)
                    working[name]?[key] = nil
                } else if let existing = working[name]?[key], rng.chance(1, in: 4) {
                    // The same bytes again (a new overflow chain for long values): no change.
                    try tree.put(key, existing)
                } else {
                    let value = Self.value(&rng)
                    try tree.put(key, value)
                    working[name]?[key] = value
                }
            }
            if round % 11 == 10, let name = names.randomElement(using: &rng), working[name] != nil {
                #expect(try txn.dropTree(name))
                working[name] = nil
                if rng.chance(1, in: 2) {
                    // Dropped and created again in one commit: same name, new tree.
                    let tree = try #require(try txn.tree(name))
                    working[name] = [:]
                    for _ in 0..<20 {
                        let key = Self.key(Int(rng.below(1500)))
                        let value = Self.value(&rng)
                        try tree.put(key, value)
                        working[name]?[key] = value
                    }
                }
            }
            if rng.chance(1, in: 8) {
                txn.abort()
            } else {
                try txn.commit()
                committed = working
            }
            let latest = try store.snapshot(label: "round \(round)")
            for name in names {
                depths[name, default: []].append(try latest.tree(name)?.depth() ?? 0)
            }
            // Against an older pinned version, and between two of them.
            if let older = held.randomElement(using: &rng) {
                try Self.expectDiffsMatch(older, (latest, committed), names: names)
            }
            if held.count >= 2 {
                let i = Int(rng.below(UInt64(held.count))), j = Int(rng.below(UInt64(held.count)))
                try Self.expectDiffsMatch(held[i], held[j], names: names)
            }
            // A version against itself: nothing, and nothing read.
            let (none, stats) = try Self.diff(latest, "alpha", since: latest)
            #expect(none.isEmpty && stats.pagesRead == 0)
            held.append((latest, committed))
            if held.count > 6 {
                let (dropped, _) = held.remove(at: Int(rng.below(UInt64(held.count))))
                dropped.close()
            }
        }
        // The trees grew to several levels and shrank again.
        for name in names {
            let seen = depths[name, default: []]
            let peak = seen.firstIndex(of: seen.max() ?? 0) ?? 0
            #expect((seen.max() ?? 0) >= 3, "\(name) depths \(seen)")
            #expect(seen[peak...].contains { $0 < (seen.max() ?? 0) }, "\(name) depths \(seen)")
        }
    }

    // MARK: cost

    @Test func aHundredChangesInALargeTreeReadOnlyTheChangedPaths() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("cost.firn"), options: Self.options())
        var rng = SeededGenerator(seed: 42)
        let records = 200_000
        func key(_ i: Int) -> [UInt8] {
            var k = [UInt8](repeating: 0, count: 16)
            var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
            for j in 0..<8 { k[j] = UInt8(truncatingIfNeeded: x >> 56); x <<= 8 }
            k[8] = UInt8(truncatingIfNeeded: i)
            return k
        }
        try store.write { txn in
            let tree = try #require(try txn.tree("kv"))
            for i in 0..<records { try tree.put(key(i), [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 100)) }
        }
        let older = try store.snapshot(label: "before")
        var changed = Set<Int>()
        while changed.count < 100 { changed.insert(Int(rng.below(UInt64(records)))) }
        try store.write { txn in
            let tree = try #require(try txn.tree("kv"))
            for i in changed { try tree.put(key(i), [UInt8](repeating: 0xEE, count: 99)) }
        }
        let newer = try store.snapshot(label: "after")

        let (changes, stats) = try Self.diff(newer, "kv", since: older)
        #expect(changes.count == 100)
        #expect(Set(changes.map { if case let .changed(k, _, _) = $0 { k } else { [] } }) == Set(changed.map(key)))

        // The pages each version has and the other does not: what a diff must read.
        func pages(_ snapshot: Snapshot) throws -> Set<PageRef> {
            var out = Set<PageRef>()
            var visited = Set<UInt64>()
            let root = try #require(try snapshot.tree("kv")).entry.root
            try snapshot.walkPages(root: root, tree: "kv", visited: &visited) { page in
                out.insert(PageRef(page: page.page, birth: page.birth, checksum: 0))
            }
            return out
        }
        let before = try pages(older), after = try pages(newer)
        let differing = before.symmetricDifference(after).count
        // Both catalogs are one leaf: one page each to find the tree.
        #expect(stats.pagesRead <= differing + 2, "read \(stats.pagesRead), \(differing) pages differ")
        #expect(stats.pagesRead * 20 < after.count, "read \(stats.pagesRead) of \(after.count) pages")
        #expect(stats.subtreesSkipped > 0)
        #expect(stats.entriesRead < records / 10)
        print("diff of 100 changes in \(records) records: \(stats.pagesRead) pages read of \(after.count) (\(differing) differ), \(stats.subtreesSkipped) subtrees skipped, \(stats.entriesRead) entries read")
        older.close()
        newer.close()
    }

    @Test func changesAtTheEndOfALeafDoNotOpenTheNextSubtree() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("edge.firn"), options: Self.options())
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<20_000 { try tree.put(Array("key\(100_000 + i)".utf8), [UInt8](repeating: 1, count: 60)) }
        }
        let first = try store.snapshot()
        // The last key of a leaf in the middle: a key just after it goes to
        // the end of that leaf, and the next entry of the other version is
        // then the next subtree's. Its separator shows it cannot hold the key.
        var lastKeys: [[UInt8]] = []
        var visited = Set<UInt64>()
        let root = try #require(try first.tree("t")).entry.root
        try first.walkPages(root: root, tree: "t", visited: &visited) { page in
            if page.type == "leaf", let last = page.lastKey { lastKeys.append(last) }
        }
        let last = lastKeys[lastKeys.count / 2]
        try store.write { txn in try #require(try txn.tree("t")).put(last + [0], [2]) }
        let second = try store.snapshot()
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            try tree.delete(last)
            try tree.delete(last + [0])
        }
        let third = try store.snapshot()
        let depth = try #require(try third.tree("t")).depth()

        let (appended, appendStats) = try Self.diff(second, "t", since: first)
        #expect(appended == [.inserted(last + [0], [2])])
        let (removed, removeStats) = try Self.diff(third, "t", since: second)
        #expect(removed == [.deleted(last, [UInt8](repeating: 1, count: 60)), .deleted(last + [0], [2])])
        // One path per version, plus one catalog page each.
        #expect(appendStats.pagesRead == 2 * depth + 2, "read \(appendStats.pagesRead), depth \(depth)")
        #expect(removeStats.pagesRead == 2 * depth + 2, "read \(removeStats.pagesRead), depth \(depth)")
    }

    // MARK: catalog

    @Test func treeChangesNameTheCreatedDroppedAndChangedTrees() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("catalog.firn"), options: Self.options())
        try store.write { txn in
            for name in ["a", "b", "c", "d"] { try #require(try txn.tree(name)).put([1], [1]) }
        }
        let older = try store.snapshot()
        try store.write { txn in
            try txn.dropTree("a")
            try #require(try txn.tree("b")).put([2], [2])
            try txn.dropTree("d")
            try #require(try txn.tree("d")).put([1], [1])  // dropped and created again
            try #require(try txn.tree("e")).put([1], [1])
        }
        let newer = try store.snapshot()
        let old = Dictionary(uniqueKeysWithValues: try older.catalog().map { ($0.name, $0.entry) })
        let new = Dictionary(uniqueKeysWithValues: try newer.catalog().map { ($0.name, $0.entry) })
        let changes = try newer.treeChanges(since: older)
        #expect(changes == [
            .dropped(name: "a", entry: try #require(old["a"])),
            .changed(name: "b", old: try #require(old["b"]), new: try #require(new["b"])),
            .changed(name: "d", old: try #require(old["d"]), new: try #require(new["d"])),
            .created(name: "e", entry: try #require(new["e"])),
        ])
        #expect(changes.map(\.name) == ["a", "b", "d", "e"])
        // The recreated tree holds what it held: a changed entry, no changed keys.
        let (keys, _) = try Self.diff(newer, "d", since: older)
        #expect(keys.isEmpty)
        // A dropped tree's keys are deleted, a created tree's inserted.
        #expect(try Self.diff(newer, "a", since: older).0 == [.deleted([1], [1])])
        #expect(try Self.diff(newer, "e", since: older).0 == [.inserted([1], [1])])
        #expect(try Self.diff(newer, "missing", since: older).0 == [])
        #expect(try newer.treeChanges(since: newer).isEmpty)
    }

    @Test func aLargeCatalogDiffSkipsTheUnchangedTrees() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("many.firn"), options: Self.options())
        let names = (0..<3000).map { "tree-\(100_000 + $0)" }
        try store.write { txn in
            for name in names { try #require(try txn.tree(name)).put([0], [0]) }
        }
        let older = try store.snapshot()
        try store.write { txn in try #require(try txn.tree("tree-101234")).put([1], [1]) }
        let newer = try store.snapshot()
        var changes: [TreeChange] = []
        let stats = try newer.treeChanges(since: older) { change in
            changes.append(change)
            return true
        }
        #expect(changes.map(\.name) == ["tree-101234"])
        var visited = Set<UInt64>()
        var catalogPages = 0
        try newer.walkPages(root: newer.catalogRootRef, tree: "(catalog)", visited: &visited) { _ in catalogPages += 1 }
        let depth = (try newer.source.view(newer.catalogRootRef).level) + 1
        #expect(depth >= 2 && stats.subtreesSkipped > 0)
        #expect(stats.pagesRead <= 2 * depth, "read \(stats.pagesRead) of \(catalogPages) catalog pages")
    }

    // MARK: early stop

    @Test func returningFalseStopsTheDiff() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("stop.firn"), options: Self.options())
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<1000 { try tree.put(Array("k\(10_000 + i)".utf8), [1]) }
        }
        let older = try store.snapshot()
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in stride(from: 0, to: 1000, by: 10) { try tree.put(Array("k\(10_000 + i)".utf8), [2]) }
            try txn.dropTree("u")
            for name in ["x", "y", "z"] { _ = try txn.tree(name) }
        }
        let newer = try store.snapshot()
        var calls = 0
        let stats = try newer.changes(in: "t", since: older) { change in
            calls += 1
            #expect(Array(change.key) == Array("k\(10_000 + 10 * (calls - 1))".utf8))
            return calls < 3
        }
        #expect(calls == 3 && stats.changes == 3 && !stats.completed)
        var trees = 0
        let catalogStats = try newer.treeChanges(since: older) { _ in
            trees += 1
            return false
        }
        #expect(trees == 1 && !catalogStats.completed)
    }

    // MARK: values

    @Test func valuesAreZeroCopyWhenInlineAndReadOnDemandFromOverflowChains() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("values.firn"), options: Self.options())
        let long = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var longer = long
        longer[9_999] ^= 1  // same length, last byte differs: found by reading both chains
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            try tree.put([1], long)
            try tree.put([2], long)
            try tree.put([3], [9, 9])
        }
        let older = try store.snapshot()
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            try tree.put([1], long)  // rewritten with the same bytes: a new chain, no change
            try tree.put([2], longer)
            try tree.put([3], [9, 8])
        }
        let newer = try store.snapshot()
        var seen: [[UInt8]] = []
        let stats = try newer.changes(in: "t", since: older) { (change) throws(FirnError) -> Bool in
            seen.append(Array(change.key))
            guard case let .changed(key, old, new) = change else { return true }
            if key.first == 2 {
                #expect(old.inlineBytes == nil && old.count == long.count)
                let assembled = try new.array()
                let last = try new.withBytes { $0.last }
                #expect(assembled == longer && last == longer.last)
            } else {
                let copied = try old.withBytes { Array($0) }
                #expect(new.inlineBytes.map(Array.init) == [9, 8] && copied == [9, 9])
            }
            return true
        }
        #expect(seen == [[2], [3]])
        // Both equal-length chains of key 1 read in full, key 2's too.
        #expect(stats.pagesRead >= 4 * OverflowLayout.pageCount(length: long.count, pageSize: store.pageSize))
    }

    @Test func snapshotsOfDifferentFilesAreRefused() throws {
        let dir = try TemporaryDirectory()
        let one = try Store.open(dir.file("one.firn"), options: Self.options())
        let two = try Store.open(dir.file("two.firn"), options: Self.options())
        let a = try one.snapshot(), b = try two.snapshot()
        #expect(throws: FirnError.self) { try a.changes(in: "t", since: b) { _ in true } }
        #expect(throws: FirnError.self) { try a.treeChanges(since: b) }
        // Another store on the same file is the same database.
        let again = try Store.open(dir.file("one.firn"), options: Self.options())
        #expect(try again.snapshot().treeChanges(since: a).isEmpty)
    }

    // MARK: hostile input

    /// A store with a tree of a few levels, an older snapshot, and a newer
    /// one whose root page (born in the newer version) the test damages.
    struct Damaged {
        let dir: TemporaryDirectory
        let store: Store
        let older: Snapshot
        let newer: Snapshot
        let root: PageRef
        let file: Int32

        init() throws {
            dir = try TemporaryDirectory()
            store = try Store.open(dir.file("hostile.firn"), options: VersionDiffTests.options())
            try store.write { txn in
                let tree = try #require(try txn.tree("t"))
                for i in 0..<3000 { try tree.put(Array("key-\(100_000 + i)".utf8), [UInt8](repeating: 7, count: 200)) }
            }
            older = try store.snapshot()
            try store.write { txn in try #require(try txn.tree("t")).put(Array("key-101500".utf8), [8]) }
            newer = try store.snapshot()
            root = try #require(try newer.tree("t")).entry.root
            file = open(dir.file("hostile.firn"), O_RDWR)
        }

        func pageOffset(_ page: UInt64) -> Int { Int(page) * store.pageSize }

        func read16(_ page: UInt64, _ at: Int) -> Int {
            var v: UInt16 = 0
            _ = pread(file, &v, 2, off_t(pageOffset(page) + at))
            return Int(UInt16(littleEndian: v))
        }

        func write64(_ page: UInt64, _ at: Int, _ value: UInt64) {
            var v = value.littleEndian
            _ = pwrite(file, &v, 8, off_t(pageOffset(page) + at))
        }

        /// The byte offset of child `i`'s reference in branch `page`.
        func childRef(_ page: UInt64, _ i: Int) -> Int { read16(page, PageHeader.size + 2 * i) + 2 }

        func expectCorrupt(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                try newer.changes(in: "t", since: older) { _ in true }
                Issue.record("\(context): no error", sourceLocation: sourceLocation)
            } catch {
                guard case let .corrupt(path, page, version, _) = error else {
                    Issue.record("\(context): \(error)", sourceLocation: sourceLocation)
                    return
                }
                #expect(path == store.path && page != nil && version != nil, "\(context): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aChildOutsideTheFileIsCorruptNotACrash() throws {
        let d = try Damaged()
        defer { close(d.file) }
        let count = d.read16(d.root.page, 2)
        #expect(count > 1)
        for i in 0..<count { d.write64(d.root.page, d.childRef(d.root.page, i), 1 << 40) }
        d.expectCorrupt("child out of range")
    }

    @Test func aBranchPointingAtItselfIsCorruptNotALoop() throws {
        let d = try Damaged()
        defer { close(d.file) }
        let count = d.read16(d.root.page, 2)
        for i in 0..<count {
            d.write64(d.root.page, d.childRef(d.root.page, i), d.root.page)
            d.write64(d.root.page, d.childRef(d.root.page, i) + 8, d.root.birth)
        }
        d.expectCorrupt("reference cycle")
    }

    @Test func everyChildSharingOnePageIsCorruptNotABlowUp() throws {
        let d = try Damaged()
        defer { close(d.file) }
        let count = d.read16(d.root.page, 2)
        let first = d.childRef(d.root.page, 0)
        var ref = [UInt8](repeating: 0, count: PageRef.size)
        _ = pread(d.file, &ref, PageRef.size, off_t(d.pageOffset(d.root.page) + first))
        for i in 1..<count {
            _ = pwrite(d.file, ref, PageRef.size, off_t(d.pageOffset(d.root.page) + d.childRef(d.root.page, i)))
        }
        d.expectCorrupt("shared child")
    }

    @Test func anOverflowChainThatLoopsIsCorruptNotALoop() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("chain.firn"), options: Self.options())
        let long = [UInt8](repeating: 3, count: 20_000)
        try store.write { txn in try #require(try txn.tree("t")).put([1], long) }
        let older = try store.snapshot()
        try store.write { txn in try #require(try txn.tree("t")).put([1], long) }  // same bytes, new chain
        let newer = try store.snapshot()
        // The new chain's head points at itself and carries no bytes.
        let root = try #require(try newer.tree("t")).entry.root
        let stored = try withBytes([1]) { (key) throws(FirnError) in try newer.source.lookup(key, in: root) }
        guard case let .overflow(head, _)? = stored else {
            Issue.record("value is not in an overflow chain")
            return
        }
        let file = open(dir.file("chain.firn"), O_RDWR)
        defer { close(file) }
        var zero: UInt32 = 0
        _ = pwrite(file, &zero, 4, off_t(Int(head.page) * store.pageSize + 4))
        var next = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: head.page.littleEndian) { next.replaceSubrange(0..<8, with: $0) }
        withUnsafeBytes(of: head.birth.littleEndian) { next.replaceSubrange(8..<16, with: $0) }
        _ = pwrite(file, next, 16, off_t(Int(head.page) * store.pageSize + PageHeader.size))
        #expect {
            try newer.changes(in: "t", since: older) { _ in true }
        } throws: { error in
            guard case let .corrupt(_, page, _, detail)? = error as? FirnError else { return false }
            return page == head.page && detail.contains("overflow")
        }
    }
}
