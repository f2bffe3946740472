import Foundation
import Testing
import FirnCore
import FirnTools
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// The writer believes nothing it reads: checksum-valid metadata with values
/// no writer produces (versions at the top of the range, space entries that
/// name a commit slot or a version from the future, slots that do not form
/// one history) is reported by `verify` and refused by the writer with 65
/// naming the page and field — never a crash, never a write over a slot.
@Suite struct UntrustedMetadataTests {
    /// A small database (its space tree one leaf) with free, retired and
    /// pinned-version entries: a snapshot pinned across several commits.
    static func fixture(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("meta.firn")
        let store = try Store.open(path, options: .pageCommits)
        func commits(_ range: Range<Int>) throws {
            for c in range {
                try store.write { txn in
                    let t = try #require(try txn.tree("t"))
                    for i in 0..<20 { _ = try t.put(Array("k\(c % 4)-\(i)".utf8), Array("value \(c)".utf8)) }
                }
            }
        }
        try commits(0..<4)
        let first = try store.snapshot(label: "first")
        // Large values born after the first pin and dropped before the
        // second: no pin sees them, so their pages end up free (F entries).
        try store.write { txn in
            let big = try #require(try txn.tree("big"))
            for i in 0..<4 { _ = try big.put(Array("big\(i)".utf8), [UInt8](repeating: UInt8(i), count: 40_000)) }
        }
        try store.write { txn in _ = try txn.dropTree("big") }
        try commits(4..<8)
        // The second pin stays to the end (a K entry, retired pages it
        // holds); the first is released, so its batches become free (F).
        let second = try store.snapshot(label: "second")
        first.close()
        try commits(8..<12)
        second.close()
        store.close()
        try FileManager.default.removeItem(atPath: path + ".lock")
        return path
    }

    /// Edits of the space tree's root leaf, resealed up to the commit slot.
    struct SpaceLeaf: CustomStringConvertible {
        var description: String { "space leaf \(root) of \(file.path)" }
        var file: FileSurgery
        var slot: Int { file.currentSlot * file.pageSize }
        var root: UInt64 { file.u64(slot + 60) }

        init(_ path: String) throws {
            file = try FileSurgery(path)
        }

        /// The offset in the file of the first key of type `tag` (F, P, K…)
        /// whose bytes after the tag satisfy `match`, searching the leaf.
        func findKey(tag: UInt8, length: Int, last: Bool = false) -> Int? {
            let start = file.offset(root), end = start + file.pageSize
            let count = Int(file.u16(start + 2))
            var found: Int? = nil
            for index in 0..<count {
                let cell = file.cell(root, index)
                guard cell > start, cell + 8 + length <= end else { continue }
                // Leaf cell (docs/FORMAT.md): key length u16, flags, reserved,
                // inline value length u32, key, value.
                let keyLength = Int(file.u16(cell))
                if keyLength == length, file.bytes[cell + 8] == tag {
                    found = cell + 8
                    if !last { return found }
                }
            }
            return found
        }

        mutating func putBE(_ value: UInt64, at offset: Int) {
            for i in 0..<8 { file.bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(7 - i))) }
        }

        /// Re-seals the leaf and the commit record's reference to it.
        mutating func reseal() throws {
            file.seal(root)
            file.put32(file.checksum(root), slot + 76)
            file.resealSlot()
            try file.save()
        }
    }

    /// The leaf cell layout the search above assumes, checked on the fixture
    /// so that a layout change fails here rather than silently finding nothing.
    @Test func theFixtureHasFreeRetiredAndPinnedEntries() throws {
        let dir = try TemporaryDirectory()
        let leaf = try SpaceLeaf(try Self.fixture(dir))
        #expect(leaf.file.bytes[leaf.file.offset(leaf.root)] == 2, "the space tree's root is not a leaf")
        #expect(leaf.findKey(tag: 0x46, length: 9) != nil, "no free entry")
        #expect(leaf.findKey(tag: 0x50, length: 25) != nil, "no retired entry")
        #expect(leaf.findKey(tag: 0x4B, length: 9) != nil, "no pinned-version entry")
    }

    /// `verify` exits 65 naming `page`; a committing writer exits 65 too,
    /// without a crash, and the data committed before is still readable.
    static func expectRefused(_ db: String, page: UInt64, mentions: String, _ context: String,
                              verifyNamesPage: Bool = true,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try FileSurgery(db).bytes
        let verify = try FirnRun.run(["verify", db], timeout: 30)
        #expect(verify.status == 65, "\(context): verify: \(verify.stdout)\(verify.stderr)", sourceLocation: sourceLocation)
        #expect(verify.isCleanFailure, "\(context): \(verify.stderr)", sourceLocation: sourceLocation)
        #expect(!verifyNamesPage || (verify.stdout + verify.stderr).contains("page \(page)"),
                "\(context): verify does not name page \(page): \(verify.stdout)\(verify.stderr)", sourceLocation: sourceLocation)
        let load = try FirnRun.run(["load", db, "--batch", "1"], stdin: Data("\"t\"\t\"new\"\t\"v\"\n".utf8), timeout: 30)
        #expect(!load.crashed, "\(context): the writer crashed: \(load.stderr)", sourceLocation: sourceLocation)
        #expect(load.status == 65, "\(context): load exited \(load.status): \(load.stderr)", sourceLocation: sourceLocation)
        #expect(load.isCleanFailure && load.stderr.contains(mentions),
                "\(context): load: \(load.stderr)", sourceLocation: sourceLocation)
        // Refused before anything was written: the file is as it was.
        #expect(try FileSurgery(db).bytes == before, "\(context): the refused writer changed the file", sourceLocation: sourceLocation)
    }

    @Test func aSlotAtTheLastVersionIsADefectNotACrash() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var file = try FileSurgery(db)
        let slot = file.currentSlot
        // 2^64 − 1 is odd: moved to slot 1 if needed so only the version is wrong.
        file.put64(UInt64.max, slot * file.pageSize + 16)
        file.resealSlot()
        try file.save()
        try Self.expectRefused(db, page: UInt64(slot), mentions: "version", "version 2^64-1")
    }

    @Test(arguments: [UInt64(1) << 63, 0])
    func versionZeroAndVersionsFrom2To63AreDefects(_ version: UInt64) throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var file = try FileSurgery(db)
        let previous = 1 - file.currentSlot
        file.put64(version, previous * file.pageSize + 16)
        let at = previous * file.pageSize
        let crc = file.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[at..<(at + 108)])) }
        file.put32(crc, at + 108)
        try file.save()
        try Self.expectRefused(db, page: UInt64(previous), mentions: "version", "version \(version)")
    }

    @Test func bothSlotsAtOneVersionAreADefect() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var file = try FileSurgery(db)
        let current = file.currentSlot, previous = 1 - current
        let currentBase = current * file.pageSize, previousBase = previous * file.pageSize
        for i in 0..<CommitRecord.size { file.bytes[previousBase + i] = file.bytes[currentBase + i] }
        try file.save()
        try Self.expectRefused(db, page: UInt64(previous), mentions: "slot", "same version")
    }

    @Test func aPreviousSlotThatIsNotTheDurableBaseIsADefect() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var file = try FileSurgery(db)
        let previous = 1 - file.currentSlot
        let at = previous * file.pageSize
        // Same parity, two versions further back.
        file.put64(file.u64(at + 16) - 2, at + 16)
        let crc = file.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[at..<(at + 108)])) }
        file.put32(crc, at + 108)
        try file.save()
        try Self.expectRefused(db, page: UInt64(previous), mentions: "slot", "not the durable base")
    }

    @Test func aFreeEntryNamingACommitSlotIsRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var leaf = try SpaceLeaf(db)
        // The lowest free entry becomes F(1): still in key order.
        let key = try #require(leaf.findKey(tag: 0x46, length: 9))
        leaf.putBE(1, at: key + 1)
        try leaf.reseal()
        try Self.expectRefused(db, page: 1, mentions: "page 1", "free entry F(1)")
        // The data committed before is intact and readable.
        let dump = try FirnRun.run(["dump", db, "--entries"], timeout: 30)
        #expect(dump.stdout.contains("\"k3-19\""), "\(dump.stderr)")
    }

    @Test func aRetiredEntryFromTheFutureIsADefectNotACrash() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var leaf = try SpaceLeaf(db)
        // The last retired entry (highest key) gets death 2^64 − 1: still in
        // key order. The writer never reclaims it (no committed version is
        // that late), so committing may succeed; it must not crash.
        let key = try #require(leaf.findKey(tag: 0x50, length: 25, last: true))
        leaf.putBE(UInt64.max, at: key + 1)
        try leaf.reseal()
        let verify = try FirnRun.run(["verify", db], timeout: 30)
        #expect(verify.status == 65 && verify.isCleanFailure && verify.stderr.contains("retired"), "\(verify.stderr)")
        let load = try FirnRun.run(["load", db, "--batch", "1"], stdin: Data("\"t\"\t\"new\"\t\"v\"\n".utf8), timeout: 30)
        #expect(!load.crashed && load.isCleanFailure && [0, 65].contains(load.status), "\(load.status): \(load.stderr)")
    }

    @Test func aRetiredEntryBornAfterItDiedIsRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var leaf = try SpaceLeaf(db)
        // The first retired entry (lowest death, the batch the next commit
        // looks at first) gets birth 2^64 − 1: still in key order.
        let key = try #require(leaf.findKey(tag: 0x50, length: 25))
        leaf.putBE(UInt64.max, at: key + 9)
        try leaf.reseal()
        try Self.expectRefused(db, page: leaf.root, mentions: "retired entry", "retired birth 2^64-1", verifyNamesPage: false)
    }

    @Test func aPinnedEntryAtTheLastVersionIsRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var leaf = try SpaceLeaf(db)
        let key = try #require(leaf.findKey(tag: 0x4B, length: 9, last: true))
        leaf.putBE(UInt64.max, at: key + 1)
        try leaf.reseal()
        try Self.expectRefused(db, page: leaf.root, mentions: "pinned entry", "pinned 2^64-1", verifyNamesPage: false)
    }

    @Test func freeAndRetiredCountsBeyondThePagesAreADefect() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.fixture(dir)
        var file = try FileSurgery(db)
        let at = file.currentSlot * file.pageSize
        file.put64(UInt64.max, at + 88)
        file.resealSlot()
        try file.save()
        try Self.expectRefused(db, page: UInt64(file.currentSlot), mentions: "free + retired", "free count 2^64-1")
    }
}
