import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// A writer that meets a hostile record refuses before writing (issue 33
/// §3): files whose checksums all hold but whose record or space ledger
/// points a writer at pages the current version still uses. `verify`
/// reports each (65); a writer (`firn load`, `firn checkpoint`) must refuse
/// with 65 naming the file and the page, and leave the file byte for byte
/// as it was, instead of writing over a page of the version it builds on.
@Suite struct HostileWriterTests {
    /// A file whose current record is a checkpoint with a commit log region
    /// (format 3): `firn load` into a new file commits one checkpoint.
    static func checkpointedFile(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.file("log.firn")
        var lines = ""
        for i in 0..<200 { lines += "\"t\"\t\"key \(i)\"\t\"value \(i)\"\n" }
        let load = try FirnRun.run(["load", db], stdin: Data(lines.utf8))
        #expect(load.status == 0, "\(load.stderr)")
        let file = try FileSurgery(db)
        try #require(file.u32(file.slotOffset + 8) == 3, "the current record made a log region")
        return db
    }

    /// What the region is moved over: the catalog root, the space root
    /// (rule L1), or a leaf the checkpoint wrote and reaches (rule L2).
    enum Overlap: String, CaseIterable { case catalogRoot, spaceRoot, leaf }

    /// The record's log region moved onto a page its checkpoint reaches, the
    /// record re-sealed: `load` would append its frame over that page, and
    /// the next opener would fall back to the version before, without the
    /// checkpoint's entries.
    @Test(arguments: Overlap.allCases)
    func aLoadRefusesALogRegionOverAPageItsCheckpointReaches(_ overlap: Overlap) throws {
        let dir = try TemporaryDirectory()
        let db = try Self.checkpointedFile(dir)
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"]).json(PagesJSON.self).pages
        var file = try FileSurgery(db)
        let slot = file.slotOffset
        let page: UInt64
        switch overlap {
        case .catalogRoot: page = file.catalogRoot
        case .spaceRoot: page = file.spaceRoot
        case .leaf: page = try #require(pages.last { $0.tree == "t" && $0.type == "leaf" }?.page)
        }
        try #require(page >= 2)
        #expect(file.birth(page) == file.u64(slot + 16), "the checkpoint wrote the page")
        let logical = file.u64(slot + 32)
        // One page, or as many as fit before the logical end: inside [2, L),
        // so only the overlap is wrong.
        let count = UInt32(min(UInt64(file.u32(slot + 116)), logical - page))
        file.put64(page, slot + 108)
        file.put32(count, slot + 116)
        file.resealRecord()
        try file.save()
        let hostile = try Data(contentsOf: URL(fileURLWithPath: db))

        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 65, "verify: \(verify.stdout)\(verify.stderr)")

        let load = try FirnRun.run(["load", db], stdin: Data("\"t\"\t\"new\"\t\"entry\"\n".utf8))
        #expect(load.status == 65, "load exited \(load.status): \(load.stdout)\(load.stderr)")
        #expect(load.isCleanFailure, "\(load.stderr)")
        let what = [.catalogRoot: "its catalog root", .spaceRoot: "its space root", .leaf: "a page it reaches"][overlap] ?? ""
        #expect(load.stderr.contains(db) && load.stderr.contains("page \(page)")
                    && load.stderr.contains("log region") && load.stderr.contains(what),
                "load names the file, the region and the page: \(load.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == hostile, "a refused load changed the file")
    }

    /// What the hostile free entry names: a leaf the checkpoint wrote and
    /// reaches (rule R3), or its catalog root (rule R1).
    enum Freed: String, CaseIterable { case leaf, catalogRoot }

    /// The space ledger of a checkpoint frees a page the checkpoint
    /// reaches: `firn checkpoint` would write a replayed leaf over it (the
    /// only free page: the leaf takes it), leaving the page reached twice
    /// and the entries under it gone, while every checksum holds.
    @Test(arguments: Freed.allCases)
    func aCheckpointRefusesAFreeEntryNamingAPageTheVersionReaches(_ freed: Freed) throws {
        let dir = try TemporaryDirectory()
        let db = try Self.checkpointedFile(dir)
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"]).json(PagesJSON.self).pages
        var file = try FileSurgery(db)
        let slot = file.slotOffset
        let version = file.u64(slot + 16)
        try #require(pages.filter { $0.tree == "(space)" }.map(\.page) == [file.spaceRoot], "the space tree is one leaf")
        let leaves = pages.filter { $0.tree == "t" && $0.type == "leaf" }.map(\.page)
        try #require(leaves.count >= 2)
        // The last leaf: the frame below does not change it, the checkpoint keeps it.
        let reached = freed == .leaf ? try #require(leaves.last) : file.catalogRoot
        #expect(file.birth(reached) == version, "the checkpoint wrote the page")
        var cells = file.leafCells(file.spaceRoot)
        try #require(!cells.contains { $0.key.first == UInt8(ascii: "F") }, "no free page besides the hostile one")
        cells.append(.inline(FileSurgery.spaceKey("F", reached), []))
        file.writeLeaf(file.spaceRoot, FileSurgery.sorted(cells))
        file.resealChain(file.spaceRoot, parents: [])
        // The record's free count agrees with the ledger.
        file.put64(file.u64(slot + 88) + 1, slot + 88)
        file.resealRecord()
        try file.save()
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 65, "verify: \(verify.stdout)\(verify.stderr)")
        // A frame after the edited record (frames chain from the record's
        // checksum): the checkpoint replays it into the first leaf of "t",
        // and writes that leaf to a page the ledger gives it.
        let frame = try FirnRun.run(["load", db], stdin: Data("\"t\"\t\"key 0\"\t\"changed\"\n".utf8))
        #expect(frame.status == 0, "\(frame.stderr)")
        let hostile = try Data(contentsOf: URL(fileURLWithPath: db))

        let checkpoint = try FirnRun.run(["checkpoint", db])
        #expect(checkpoint.status == 65, "checkpoint exited \(checkpoint.status): \(checkpoint.stdout)\(checkpoint.stderr)")
        #expect(checkpoint.isCleanFailure, "\(checkpoint.stderr)")
        #expect(checkpoint.stderr.contains(db) && checkpoint.stderr.contains("page \(reached)")
                    && checkpoint.stderr.contains("space ledger")
                    && checkpoint.stderr.contains(freed == .leaf ? "version \(version) reaches it" : "the catalog root of version \(version)"),
                "checkpoint names the file, the page and what was expected: \(checkpoint.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == hostile, "a refused checkpoint changed the file")
    }

    /// The ledger frees a leaf of the current version that the next commit
    /// replaces (born before the version, so its header does not give it
    /// away): a `load` into that leaf would write its new leaf over the old
    /// one, which the version in the other slot still reads (rule R2). Its
    /// pages are refused before any page of a version is written.
    @Test func aLoadRefusesAFreeEntryNamingAPageTheCommitReplaces() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        let pages = try FirnRun.run(["dump", small.db, "--pages", "--json"]).json(PagesJSON.self).pages
        var file = try FileSurgery(small.db)
        let leaf = try #require(pages.first { $0.tree == "u" && $0.type == "leaf" && file.birth($0.page) < small.version }?.page)
        let key = try #require(file.leafCells(leaf).first?.key)
        // The leaf is the only page the ledger offers: no other free page,
        // no retired page to reclaim (the record's counts agree).
        var cells = file.leafCells(small.space).filter { ![UInt8(ascii: "F"), UInt8(ascii: "P")].contains($0.key.first) }
        cells.append(.inline(FileSurgery.spaceKey("F", leaf), []))
        file.writeLeaf(small.space, FileSurgery.sorted(cells))
        file.resealChain(small.space, parents: [])
        let slot = file.slotOffset
        file.put64(1, slot + 88)
        file.put64(0, slot + 96)
        file.resealRecord()
        try file.save()
        let logical = Int(file.u64(slot + 32)) * file.pageSize
        let hostile = Array(file.bytes[0..<logical])

        let hex = key.map { String(format: "%02x", $0) }.joined()
        let load = try FirnRun.run(["load", small.db], stdin: Data("\"u\"\tx\(hex)\t\"changed\"\n".utf8))
        #expect(load.status == 65, "load exited \(load.status): \(load.stdout)\(load.stderr)")
        #expect(load.isCleanFailure, "\(load.stderr)")
        #expect(load.stderr.contains(small.db) && load.stderr.contains("page \(leaf)") && load.stderr.contains("space ledger")
                    && load.stderr.contains("this commit replaces it"),
                "load names the file, the page and what was expected: \(load.stderr)")
        // No page of the version changed (the commit may have grown the file
        // for pages past its end, which no version uses).
        let after = try FileSurgery(small.db)
        #expect(Array(after.bytes[0..<logical]) == hostile, "a refused load changed a page of the version")
    }

    /// What a writer produces is never refused: a value put as an overflow
    /// chain and replaced in the same transaction leaves free pages whose
    /// headers carry the commit's version (rule R3 looks them up and finds
    /// them unreached), and the next commits reuse them.
    @Test func freePagesTheLastCommitWroteAndDroppedAreReused() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("reuse.firn")
        let store = try Store.open(db, options: .pageCommits)
        defer { store.close() }
        try store.write { txn in
            let t = try #require(try txn.tree("t"))
            try t.put(Array("big".utf8), [UInt8](repeating: 7, count: 40_000))
            try t.put(Array("big".utf8), Array("small now".utf8))
        }
        let file = try FileSurgery(db)
        let version = file.u64(file.slotOffset + 16)
        let free = file.leafCells(file.spaceRoot).filter { $0.key.first == UInt8(ascii: "F") }
            .map { FileSurgery.bigEndian($0.key[1..<9]) }
        let written = free.filter { file.birth($0) == version && file.u64(file.offset($0) + 8) == $0 }
        #expect(!written.isEmpty, "free pages written by the last commit: \(free)")
        try store.write { txn in
            let t = try #require(try txn.tree("t"))
            try t.put(Array("big again".utf8), [UInt8](repeating: 9, count: 40_000))
        }
        let after = try FileSurgery(db)
        #expect(written.contains { after.birth($0) == version + 1 }, "the next commit reused them")
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}

extension FileSurgery {
    /// Re-seals the current commit record, format 2 (CRC at 108) or
    /// format 3 (a log region; CRC at 124), after an edit of its fields.
    mutating func resealRecord() {
        let slot = slotOffset
        let end = u32(slot + 8) == 3 ? slot + 124 : slot + 108
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[slot..<end])) }
        put32(crc, end)
    }
}
