import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// Where an independent reader written from docs/FORMAT.md alone and the
/// tool disagreed (issue "Nothing laundered, nothing stale" §4), the tool
/// now does what the spec says.
@Suite struct SpecAgreementTests {
    /// A file whose only record is an unsealed version 1 (slot 0 empty) is
    /// corrupt (65), not "both commit slots are empty" (66): slot 1 holds a
    /// record with the magic, just not a valid one.
    @Test func aFileWhoseOnlyRecordIsAnUnsealedVersion1IsCorruptNotEmpty() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("one.firn")
        let created = try FirnRun.run(["load", db], stdin: Data("\"t\"\n".utf8))
        #expect(created.status == 0, "\(created.stderr)")
        try? FileManager.default.removeItem(atPath: db + ".lock")
        var file = try FileSurgery(db)
        // Version 1 is in slot 1 of a new file; the load's version 2 in slot 0.
        let slot1 = file.pageSize
        #expect(file.u64(slot1 + 16) == 1, "version 1 in slot 1")
        for i in 0..<file.pageSize { file.bytes[i] = 0 }
        file.put32(file.u32(slot1 + 104) | (1 << 31), slot1 + 104)
        let crc = file.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[slot1..<(slot1 + 108)])) }
        file.put32(crc, slot1 + 108)
        try file.save()
        for command in [["verify"], ["info"], ["dump", "--entries"]] {
            let run = try FirnRun.run([command[0], db] + command.dropFirst())
            #expect(run.status == 65 && run.isCleanFailure, "\(command): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(db) && run.stderr.contains("slot 1") && run.stderr.contains("sealed for version 1"),
                    "\(command) names slot 1 and what is wrong: \(run.stderr)")
        }
        // A file with no record at all is still "not a Firn database".
        let empty = dir.file("empty.firn")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data(count: 2 * file.pageSize)))
        let run = try FirnRun.run(["info", empty])
        #expect(run.status == 66 && run.stderr.contains("both commit slots are empty"), "\(run.status) \(run.stderr)")
    }

    /// FORMAT.md 2.1: a page born after the durable base that checks out
    /// but breaks another rule (a cell out of bounds) is what its writer
    /// wrote; the open-time check accepts the record and does not walk
    /// below that page — not even below the cells before the broken one —
    /// and `verify` reports the defect. The check used to queue those
    /// children first, meet a damaged one and silently fall back a version.
    @Test func theOpenTimeCheckDoesNotWalkBelowAPageThatBreaksARule() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        let cells = file.branchCells(small.u)
        // The leaf the last commit rewrote (born in the current version), not the last child.
        let newest = try #require(cells.dropLast().firstIndex { file.birth($0.childPage) == small.version },
                                  "a child born in v\(small.version) before the last cell")
        file.flipBit(page: cells[newest].childPage, at: file.pageSize / 2)
        // The branch's last cell offset out of bounds, the branch resealed up to the slot.
        file.put16(UInt16(file.pageSize - 2), file.offset(small.u) + 32 + 2 * (cells.count - 1))
        file.resealChain(small.u, parents: [small.catalog])
        try file.save()
        let info = try FirnRun.run(["info", small.db, "--json"]).json(InfoJSON.self)
        #expect(info.currentVersion == small.version, "the record was rejected: opened at v\(info.currentVersion)")
        let verify = try FirnRun.run(["verify", small.db])
        #expect(verify.status == 65 && verify.stdout.contains("page \(small.u)"), "\(verify.stdout)\(verify.stderr)")
    }
}
