import Testing
@testable import FirnCore
import FirnTestSupport

/// `verify` and the open-time check walk a big file on two cores (issue 28):
/// the second half of a big tree's root's children on another thread. What
/// they find must be what one thread finds, damage included.
@Suite struct TwoCoreWalkTests {
    /// Enough 300-byte values for a tree of three levels whose root has
    /// several children (small: the debug build writes them).
    static let entries = 4_000

    /// A file whose tree "big" (4,000 entries, some overflowing) was
    /// written in one page commit, then one entry in another tree: the
    /// open-time check of the newest record walks only that commit, so
    /// damage to "big" stays for the verifier to find. Returns the pages of
    /// "big" in walk order, as (page, level).
    static func build(_ path: String) throws -> [(page: UInt64, level: Int)] {
        var options = StoreOptions()
        options.commitLogPages = 0
        let store = try Store.open(path, options: options)
        defer { store.close() }
        var rng = SeededGenerator(seed: 28)
        try store.write { txn in
            let tree = try #require(try txn.tree("big"))
            for i in 0..<Self.entries {
                let value = [UInt8](repeating: UInt8(i % 251), count: i % 500 == 0 ? 9_000 : 300)
                try tree.put(TreeModel.key(i, &rng), value)
            }
        }
        try store.write { txn in try #require(try txn.tree("small")).put([1], [2]) }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let root = try #require(try snapshot.tree("big")).entry.root
        var pages: [(page: UInt64, level: Int)] = []
        var visited = Set<UInt64>()
        try snapshot.walkPages(root: root, tree: "big", visited: &visited) { summary in
            if summary.type != "overflow" { pages.append((summary.page, summary.level)) }
        }
        return pages
    }

    /// The verifier's report on the current version, one thread or two.
    static func verify(_ path: String, twoCores: Bool) throws -> VerifyReport {
        var storeOptions = StoreOptions()
        storeOptions.readOnly = true
        let store = try Store.open(path, options: storeOptions)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        var options = Verifier.Options()
        options.twoCoreMinimumPages = twoCores ? 0 : .max
        return Verifier.verify(snapshot, slots: try store.readSlots(), options: options)
    }

    static func expectSameReports(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> VerifyReport {
        let one = try verify(path, twoCores: false)
        let two = try verify(path, twoCores: true)
        #expect(two.findings.map(\.description) == one.findings.map(\.description), sourceLocation: sourceLocation)
        #expect(two.trees == one.trees, sourceLocation: sourceLocation)
        #expect(two.reachablePages == one.reachablePages, sourceLocation: sourceLocation)
        #expect(two.bytesChecked == one.bytesChecked, sourceLocation: sourceLocation)
        return two
    }

    /// Flips one byte near the end of `page` (inside its cells).
    static func damage(_ path: String, page: UInt64) throws {
        let file = try POSIXFile(path: path, writable: true)
        defer { file.close() }
        let offset = page * UInt64(PageGeometry.defaultPageSize) + UInt64(PageGeometry.defaultPageSize - 40)
        var byte: [UInt8] = [0]
        _ = try withMutableBytes(&byte) { (b) throws(FirnError) in try file.read(into: b, at: offset) }
        byte[0] ^= 0x5A
        try withBytes(byte) { (b) throws(FirnError) in try file.write(b, at: offset) }
    }

    @Test func aCleanFileVerifiesTheSameOnTwoCores() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("clean.firn")
        let pages = try Self.build(path)
        #expect((pages.first?.level ?? 0) >= 2, "the tree must have branches under its root to split")
        let report = try Self.expectSameReports(path)
        #expect(report.findings.isEmpty)
        #expect(report.trees.first { $0.name == "big" }?.entries == UInt64(Self.entries))
    }

    @Test(arguments: [0.2, 0.5, 0.8, 1.0])
    func damageInEitherHalfIsFoundAsOneThreadFindsIt(at share: Double) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.firn")
        let leaves = try Self.build(path).filter { $0.level == 0 }
        let index = min(leaves.count - 1, Int(Double(leaves.count) * share))
        try Self.damage(path, page: leaves[index].page)
        let report = try Self.expectSameReports(path)
        #expect(report.findings.contains { $0.page == leaves[index].page && $0.kind == .checksum })
    }

    @Test func theHalvesMarksAreJoinedAndPagesBothReachedAreNamed() throws {
        // A page both halves reached cannot be forged by flipping a byte
        // (its parent's checksum would fail first): the merge on its own.
        var one = PageBitmap(pages: 200)
        var other = PageBitmap(pages: 200)
        for page in [2, 3, 64, 130] as [UInt64] { _ = one.mark(page, .reachable) }
        for page in [4, 64, 131, 199] as [UInt64] { _ = other.mark(page, .reachable) }
        #expect(one.merge(other) == [64])
        for page in [2, 3, 4, 64, 130, 131, 199] as [UInt64] { #expect(one[page] == .reachable) }
        #expect(one[5] == .unseen && one[198] == .unseen)
    }

    /// The open-time check of a file written in one commit walks all of it:
    /// on two cores it reads and proves the same pages, and rejects the
    /// record at the same page when one is damaged.
    @Test(arguments: [nil, 0.3, 0.9] as [Double?])
    func theOpenTimeCheckOnTwoCoresProvesWhatOneThreadProves(damageAt share: Double?) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("one-commit.firn")
        var options = StoreOptions()
        options.commitLogPages = 0
        var rng = SeededGenerator(seed: 31)
        do {
            let store = try Store.open(path, options: options)
            defer { store.close() }
            try store.write { txn in
                let tree = try #require(try txn.tree("big"))
                for i in 0..<Self.entries { try tree.put(TreeModel.key(i, &rng), [UInt8](repeating: UInt8(i % 251), count: 300)) }
            }
        }
        let io = try POSIXFile(path: path, writable: false)
        defer { io.close() }
        let record = try #require(try CommitSlots.read(io).newest)
        if let share {
            let store = try Store.open(path, options: options)
            let snapshot = try store.snapshot()
            let root = try #require(try snapshot.tree("big")).entry.root
            var leaves: [UInt64] = []
            var visited = Set<UInt64>()
            try snapshot.walkPages(root: root, tree: "big", visited: &visited) { if $0.level == 0 { leaves.append($0.page) } }
            snapshot.close()
            store.close()
            try Self.damage(path, page: leaves[Int(Double(leaves.count) * share)])
        }
        var one = NewestRecordCheck(io: io, record: record, keepingCheckedPages: true)
        one.twoCoreMinimumPages = .max
        var two = NewestRecordCheck(io: io, record: record, keepingCheckedPages: true)
        two.twoCoreMinimumPages = 0
        let oneFailure = Result { () throws(NewestRecordCheck.Failure) in try one.run() }
        let twoFailure = Result { () throws(NewestRecordCheck.Failure) in try two.run() }
        switch (oneFailure, twoFailure) {
        case (.success, .success):
            #expect(share == nil)
            #expect(two.pagesRead == one.pagesRead && one.pagesRead > 300)
            #expect(two.checkedPages?.pages == one.checkedPages?.pages)
        case let (.failure(a), .failure(b)):
            #expect(share != nil)
            #expect(a.page == b.page && a.reason == b.reason)
        default:
            Issue.record("one thread: \(oneFailure), two: \(twoFailure)")
        }
    }
}
