import Foundation
import Testing
import FirnTools

/// Where an independent reader written from docs/FORMAT.md alone and the
/// tool disagreed (issue "Nothing laundered, nothing stale" §4), the tool
/// now does what the spec says.
@Suite struct SpecAgreementTests {
    /// A file whose only record is an unsealed version 1 (slot 0 empty) is
    /// corrupt (65), not "both commit slots are empty" (66): slot 1 holds a
    /// record with the magic, just not a valid one.
    @Test func aFileWhoseOnlyRecordIsAnUnsealedVersion1IsCorruptNotEmpty() throws {
        let dir = try Scratch()
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
}
