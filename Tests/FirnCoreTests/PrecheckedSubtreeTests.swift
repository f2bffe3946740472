import Testing
@testable import FirnCore
import FirnTestSupport

/// A compaction checks its copy's subtrees as it writes them
/// (`SubtreeChecker`), and the verification of the copy takes each clean
/// one where its parent references it instead of reading it again. The
/// report must be the full walk's; a subtree whose edge does not hold, or
/// that was damaged, is walked (issue 28's compact row).
@Suite struct PrecheckedSubtreeTests {
    /// Packs `source`'s current version into `output` through a direct,
    /// buffered writer with a subtree checker; the subtrees it found clean.
    static func pack(_ source: String, into output: String) throws -> [PageRef: PrecheckedSubtree] {
        try withSnapshot(source) { snapshot in try pack(snapshot, into: output) }
    }

    /// `body` with the current version of `path`, opened read-only.
    static func withSnapshot<R>(_ path: String, _ body: (Snapshot) throws -> R) throws -> R {
        var options = StoreOptions()
        options.readOnly = true
        let store = try Store.open(path, options: options)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return try body(snapshot)
    }

    static func pack(_ snapshot: Snapshot, into output: String) throws -> [PageRef: PrecheckedSubtree] {
        let file = try #require(WriteBehindFile(try POSIXFile(path: output, writable: true, create: true), direct: true,
                                                buffers: WriteBehindFile.keptBufferCount))
        defer { file.close() }
        let checker = try #require(SubtreeChecker(snapshot: snapshot, output: file))
        _ = try PackedImageWriter.write(snapshot, to: file, observer: checker)
        let prechecked = checker.finish()
        try file.sync()
        return prechecked
    }

    static func verify(_ path: String, prechecked: [PageRef: PrecheckedSubtree]) throws -> VerifyReport {
        var options = StoreOptions()
        options.readOnly = true
        options.skipsOpenCheck = true
        let store = try Store.open(path, options: options)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return Verifier.verify(snapshot, slots: try store.readSlots(), prechecked: prechecked)
    }

    static func expectSame(_ a: VerifyReport, _ b: VerifyReport, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.findings.map(\.description) == b.findings.map(\.description), sourceLocation: sourceLocation)
        #expect(a.trees == b.trees, sourceLocation: sourceLocation)
        #expect(a.reachablePages == b.reachablePages, sourceLocation: sourceLocation)
        #expect(a.bytesChecked == b.bytesChecked, sourceLocation: sourceLocation)
    }

    /// A page of a prechecked subtree that is not its root: a leaf under it.
    static func leaf(of subtree: PrecheckedSubtree, root: PageRef) -> UInt64? {
        subtree.pages.first { $0 != root.page }
    }

    @Test func theCopyVerifiesAsTheFullWalkDoesWithoutReadingThePrecheckedSubtrees() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("source.firn"), copy = dir.file("copy.firn")
        _ = try TwoCoreWalkTests.build(source)
        let prechecked = try Self.pack(source, into: copy)
        #expect(prechecked.count >= 2, "the big tree's level-1 subtrees are checked as they are written")
        #expect(prechecked.values.contains { $0.counts.overflowPages > 0 }, "overflow chains are part of their subtrees")
        let full = try Self.verify(copy, prechecked: [:])
        let taken = try Self.verify(copy, prechecked: prechecked)
        #expect(full.findings.isEmpty)
        Self.expectSame(taken, full)
        #expect(full.trees.first { $0.name == "big" }?.entries == UInt64(TwoCoreWalkTests.entries))
        // Proof that they are taken, not read: damage in one is seen only by the full walk.
        let (root, subtree) = try #require(prechecked.first { $0.key.page != 0 })
        try TwoCoreWalkTests.damage(copy, page: try #require(Self.leaf(of: subtree, root: root)))
        #expect(try Self.verify(copy, prechecked: prechecked).findings.isEmpty)
        #expect(!(try Self.verify(copy, prechecked: [:]).findings.isEmpty))
    }

    @Test func aSubtreeWhoseEdgeDoesNotHoldIsWalkedAgain() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("source.firn"), copy = dir.file("copy.firn")
        _ = try TwoCoreWalkTests.build(source)
        var prechecked = try Self.pack(source, into: copy)
        // One in the middle of the tree: a subtree before it sets the depth
        // and the key before, a separator after it bounds it above.
        let inOrder = prechecked.sorted { compareBytes($0.value.firstKey, $1.value.firstKey) < 0 }
        try #require(inOrder.count >= 3)
        let (root, subtree) = inOrder[inOrder.count / 2]
        let leafPage = try #require(Self.leaf(of: subtree, root: root))
        // Keys past its upper bound, first and last swapped (within the
        // bounds, but not in order), a deeper leaf level, another level than
        // the parent expects: each refused, so the subtree is read and its
        // damage reported.
        let tampered: [(inout PrecheckedSubtree) -> Void] = [
            { $0.firstKey = [0xFF, 0xFF, 0xFF]; $0.lastKey = [0xFF, 0xFF, 0xFF, 0xFF] },
            { swap(&$0.firstKey, &$0.lastKey) },
            { $0.leafDepth += 1 },
            { $0.level += 1 },
        ]
        try TwoCoreWalkTests.damage(copy, page: leafPage)
        let full = try Self.verify(copy, prechecked: [:])
        #expect(!full.findings.isEmpty)
        for tamper in tampered {
            var wrong = subtree
            tamper(&wrong)
            prechecked[root] = wrong
            Self.expectSame(try Self.verify(copy, prechecked: prechecked), full)
        }
    }

    @Test func aDamagedSubtreeIsNotPrechecked() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("source.firn"), copy = dir.file("copy.firn")
        _ = try TwoCoreWalkTests.build(source)
        let prechecked = try Self.pack(source, into: copy)
        let (root, subtree) = try #require(prechecked.first)
        let pages = try POSIXFile(path: copy, writable: false).size() / UInt64(PageGeometry.defaultPageSize)
        let leafPage = try #require(Self.leaf(of: subtree, root: root))
        try Self.withSnapshot(source) { snapshot in
            func precheck(pages: UInt64) throws -> PrecheckedSubtree? {
                var verifier = Verifier(subtreesOf: snapshot, reading: try POSIXFile(path: copy, writable: false))
                return verifier.precheck(root, level: subtree.level, tree: "big", pages: pages)
            }
            // The same walk the checker made, over the written copy: the same subtree.
            #expect(try precheck(pages: pages) == subtree)
            // A root past the pages written so far is not judged clean.
            #expect(try precheck(pages: root.page) == nil)
            try TwoCoreWalkTests.damage(copy, page: leafPage)
            #expect(try precheck(pages: pages) == nil)
        }
    }
}
