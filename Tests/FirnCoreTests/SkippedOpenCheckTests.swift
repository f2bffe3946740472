import Testing
@testable import FirnCore
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `StoreOptions.skipsOpenCheck`: compaction and import verify their own
/// output without the open-time walk before the verifier's. The verifier
/// still finds what the check would have; and with a lock file the option
/// is ignored, since the version the opener accepts may be published there.
@Suite struct SkippedOpenCheckTests {
    /// A file written in one page commit with one leaf damaged: the
    /// open-time check rejects its newest record. Returns the damaged page.
    static func damagedFile(_ path: String) throws -> UInt64 {
        var options = StoreOptions()
        options.commitLogPages = 0
        let store = try Store.open(path, options: options)
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<2_000 { try tree.put(ScatteredKeys.key(i), [UInt8](repeating: UInt8(i % 251), count: 200)) }
        }
        let snapshot = try store.snapshot()
        let root = try #require(try snapshot.tree("t")).entry.root
        var leaves: [UInt64] = []
        var visited = Set<UInt64>()
        try snapshot.walkPages(root: root, tree: "t", visited: &visited) { if $0.level == 0 { leaves.append($0.page) } }
        snapshot.close()
        store.close()
        let page = leaves[leaves.count / 2]
        try TwoCoreWalkTests.damage(path, page: page)
        return page
    }

    static func openReadOnly(_ path: String, skipping: Bool) throws -> Store {
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        options.skipsOpenCheck = skipping
        return try Store.open(path, options: options)
    }

    @Test func withoutALockFileTheNewestIsTakenAndTheVerifierFindsTheDamage() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("own-output.firn")
        let page = try Self.damagedFile(path)
        unlink(path + ".lock")
        let store = try Self.openReadOnly(path, skipping: true)
        defer { store.close() }
        let slots = try store.readSlots()
        #expect(slots.rejected == nil)
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        #expect(snapshot.version == slots.newest?.version)
        let report = Verifier.verify(snapshot, slots: slots)
        #expect(report.findings.contains { $0.page == page && $0.kind == .checksum })
    }

    @Test func theCheckStillRunsWhenNotSkippedOrWhenALockFileExists() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("checked.firn")
        _ = try Self.damagedFile(path)
        // The lock file the writer left: the option is ignored.
        for skipping in [true, false] {
            let store = try Self.openReadOnly(path, skipping: skipping)
            defer { store.close() }
            #expect(store.lockFile != nil)
            let slots = try store.readSlots()
            #expect(slots.rejected?.version == slots.newest?.version)
            #expect(try store.snapshot().version < (slots.newest?.version ?? 0))
        }
        unlink(path + ".lock")
        let store = try Self.openReadOnly(path, skipping: false)
        defer { store.close() }
        #expect(store.lockFile == nil)
        #expect(try store.readSlots().rejected != nil)
    }
}
