import Foundation
import Testing
import FirnTools
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// Damaged and hostile files: every command answers with one clear line and
/// the documented exit status — never a crash, a hang or a backtrace — and
/// `verify` names the damaged page.
@Suite struct HostileInputTests {
    /// Every command that reads FILE, as arguments after the file.
    static let readers: [[String]] = [
        ["info"], ["versions"], ["pins"], ["growth"], ["dump"], ["dump", "--pages"], ["dump", "--entries"],
        ["dump", "--objects"], ["verify"], ["export", "-o", "-"],
    ]

    /// Runs every reader on `db`: each must end cleanly with one of `allowed`.
    static func expectNoCrash(_ db: String, allowed: Set<Int32> = [0, 65], _ context: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        for command in readers {
            let run = try FirnRun.run([command[0], db] + command.dropFirst(), timeout: 30)
            #expect(run.isCleanFailure, "\(context): firn \(command.joined(separator: " ")): \(run.stderr)", sourceLocation: sourceLocation)
            #expect(allowed.contains(run.status), "\(context): firn \(command.joined(separator: " ")) exited \(run.status): \(run.stderr)",
                    sourceLocation: sourceLocation)
        }
    }

    static func expectVerifyNames(_ db: String, page: UInt64, _ context: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try FirnRun.run(["verify", db], timeout: 30)
        #expect(run.status == 65, "\(context): \(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.isCleanFailure, "\(context): \(run.stderr)", sourceLocation: sourceLocation)
        #expect((run.stdout + run.stderr).contains("page \(page)"), "\(context): \(run.stdout)\(run.stderr)",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: ["branch", "leaf", "overflow", "space", "catalog"])
    func aFlippedBitInEveryPageTypeIsNamedByVerify(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let (db, layout) = try dir.damageableSample()
        let page = switch kind {
        case "branch": layout.usersRoot
        case "leaf": layout.usersLeaf
        case "overflow": layout.overflow
        case "space": layout.space
        default: layout.catalog
        }
        var file = try FileSurgery(db)
        file.flipBit(page: page, at: 2048)
        try file.save()
        try Self.expectVerifyNames(db, page: page, kind)
        try Self.expectNoCrash(db, kind)
    }

    @Test(arguments: [0, 1])
    func aFlippedBitInEachCommitSlotIsNamedByVerify(_ slot: Int) throws {
        let dir = try TemporaryDirectory()
        let (db, _) = try dir.damageableSample(keepPreviousSlot: true)
        var file = try FileSurgery(db)
        file.flipBit(page: UInt64(slot), at: 20)
        try file.save()
        try Self.expectVerifyNames(db, page: UInt64(slot), "slot \(slot)")
        try Self.expectNoCrash(db, "slot \(slot)")
        // Both slots damaged: nothing to read, 65 with one line.
        file.flipBit(page: UInt64(1 - slot), at: 20)
        try file.save()
        let run = try FirnRun.run(["info", db])
        #expect(run.status == 65 && run.isCleanFailure && run.stderr.contains("no valid commit slot"))
        try Self.expectNoCrash(db, allowed: [65], "both slots")
    }

    @Test func aZeroedPageIsNamedByVerify() throws {
        let dir = try TemporaryDirectory()
        let (db, layout) = try dir.damageableSample()
        var file = try FileSurgery(db)
        file.zero(page: layout.usersLeaf)
        try file.save()
        try Self.expectVerifyNames(db, page: layout.usersLeaf, "zeroed leaf")
        try Self.expectNoCrash(db, "zeroed leaf")
    }

    @Test func aBranchPointingAtItselfIsACycleNotAHang() throws {
        let dir = try TemporaryDirectory()
        let (db, layout) = try dir.damageableSample()
        var file = try FileSurgery(db)
        let root = layout.usersRoot
        let cell = file.cell(root, 1)
        file.put64(root, cell + 2)
        file.put64(file.birth(root), cell + 10)
        file.resealChain(root, parents: [layout.catalog])
        try file.save()
        try Self.expectVerifyNames(db, page: root, "self cycle")
        try Self.expectNoCrash(db, "self cycle")
    }

    @Test func twoBranchCellsSharingAChildAreCaught() throws {
        let dir = try TemporaryDirectory()
        let (db, layout) = try dir.damageableSample()
        var file = try FileSurgery(db)
        let root = layout.usersRoot
        let first = file.cell(root, 0), second = file.cell(root, 1)
        let shared = file.u64(first + 2)
        for i in 0..<20 { file.bytes[second + 2 + i] = file.bytes[first + 2 + i] }
        file.resealChain(root, parents: [layout.catalog])
        try file.save()
        try Self.expectVerifyNames(db, page: shared, "shared child")
        try Self.expectNoCrash(db, "shared child")
        let entries = try FirnRun.run(["dump", db, "--entries"], timeout: 30)
        #expect(entries.status == 65 && entries.stderr.contains("reached twice"))
    }

    @Test func absurdCountsAndLengthsAreRefused() throws {
        let dir = try TemporaryDirectory()
        let (db, layout) = try dir.damageableSample()
        let pristine = try FileSurgery(db)

        // A leaf claiming 65535 entries.
        var file = pristine
        file.put16(0xFFFF, file.offset(layout.usersLeaf) + 2)
        file.resealChain(layout.usersLeaf, parents: [layout.usersRoot, layout.catalog])
        try file.save()
        try Self.expectVerifyNames(db, page: layout.usersLeaf, "count 65535")
        try Self.expectNoCrash(db, "count 65535")

        // A key length running past the page.
        file = pristine
        file.put16(0xFFFF, file.cell(layout.usersLeaf, 0))
        file.resealChain(layout.usersLeaf, parents: [layout.usersRoot, layout.catalog])
        try file.save()
        try Self.expectVerifyNames(db, page: layout.usersLeaf, "key length")
        try Self.expectNoCrash(db, "key length")

        // An overflow value claiming 2^62 bytes.
        file = pristine
        let cell = file.cell(layout.blobsRoot, 0)
        #expect(file.bytes[cell + 2] & 1 == 1)
        let keyLength = Int(file.u16(cell))
        file.put64(1 << 62, cell + 8 + keyLength + 20)
        file.resealChain(layout.blobsRoot, parents: [layout.catalog])
        try file.save()
        try Self.expectVerifyNames(db, page: file.u64(cell + 8 + keyLength), "overflow length")
        try Self.expectNoCrash(db, "overflow length")

        // A catalog entry count of 2^60.
        file = pristine
        let catalogCell = file.cell(layout.catalog, 0)
        let nameLength = Int(file.u16(catalogCell))
        file.put64(1 << 60, catalogCell + 8 + nameLength + 20)
        file.resealChain(layout.catalog, parents: [])
        try file.save()
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 65 && verify.stdout.contains("count"))
        try Self.expectNoCrash(db, "catalog count")

        // A commit record claiming 2^60 pages.
        file = pristine
        file.put64(1 << 60, file.currentSlot * file.pageSize + 32)
        file.resealSlot()
        try file.save()
        try Self.expectNoCrash(db, allowed: [65], "logical page count")
    }

    /// With the previous version in its slot, a lost write in a page the
    /// last commit wrote is an interrupted commit, not damage: the newest
    /// record is rejected, every command reads the previous version, verify
    /// exits 0 and names the rejected record as the state of its slot, info
    /// and versions say which record is current and that the newer one was
    /// rejected.
    @Test func aLostPageOfTheLastCommitIsARejectedRecordNotAFinding() throws {
        let dir = try TemporaryDirectory()
        let (db, layout) = try dir.damageableSample(keepPreviousSlot: true)
        var file = try FileSurgery(db)
        let newest = file.u64(file.currentSlot * file.pageSize + 16)
        file.flipBit(page: layout.catalog, at: 2048)
        try file.save()
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("version \(newest - 1) is clean") && verify.stdout.contains("rejected"), "\(verify.stdout)")
        let info = try FirnRun.run(["info", db])
        #expect(info.status == 0 && info.stdout.contains("v\(newest - 1)") && info.stdout.contains("(current)")
                && info.stdout.contains("rejected"), "\(info.stdout)")
        let infoJSON = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        #expect(infoJSON.currentVersion == newest - 1)
        let versions = try FirnRun.run(["versions", db])
        #expect(versions.status == 0 && versions.stdout.contains("rejected"), "\(versions.stdout)")
        // Export and compaction to a file first try without the check (their
        // packing pass checks every page): the damaged page fails that try,
        // and they copy the version the check chooses, as before.
        struct Copied: Decodable { let version: UInt64 }
        let export = try FirnRun.run(["export", db, "-o", dir.file("rejected.lz4"), "--json"])
        #expect(export.status == 0, "\(export.stdout)\(export.stderr)")
        #expect(try export.json(Copied.self).version == newest - 1)
        let compact = try FirnRun.run(["compact", db, "-o", dir.file("rejected-packed.firn"), "--json"])
        #expect(compact.status == 0, "\(compact.stdout)\(compact.stderr)")
        #expect(try compact.json(Copied.self).version == newest - 1)
        let dryRun = try FirnRun.run(["compact", db, "-o", dir.file("dry.firn"), "--dry-run", "--json"])
        #expect(dryRun.status == 0, "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(try dryRun.json(Copied.self).version == newest - 1)
        try Self.expectNoCrash(db, allowed: [0], "rejected newest record")
    }

    @Test func truncatedFilesAtSeveralLengths() throws {
        let dir = try TemporaryDirectory()
        let (db, _) = try dir.damageableSample(keepPreviousSlot: true)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: db))
        struct Logical: Decodable { let logicalBytes: Int }
        let logical = try FirnRun.run(["info", db, "--json"]).json(Logical.self).logicalBytes
        for length in [0, 50, 4096, 4096 + 500, 8192, pristine.count / 2, pristine.count - 4096, pristine.count - 1] {
            try pristine.prefix(length).write(to: URL(fileURLWithPath: db))
            let verify = try FirnRun.run(["verify", db], timeout: 30)
            // Too short for a commit record: not a Firn file. Shorter than the
            // version's pages: corrupt. Only unused space past them cut: clean.
            let expected: Int32 = length < 112 ? 66 : (length < logical ? 65 : 0)
            #expect(verify.status == expected, "length \(length): \(verify.stdout)\(verify.stderr)")
            try Self.expectNoCrash(db, allowed: [0, 65, 66], "truncated to \(length)")
        }
    }

    @Test func aGarbageLockFileIsReportedNotFatal() throws {
        let dir = try TemporaryDirectory()
        let (db, _) = try dir.damageableSample()
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: db + ".lock"))
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 0 && verify.stdout.contains("lock file: the lock file is not usable"))
        try Self.expectNoCrash(db, allowed: [0], "garbage lock file")
        // A writer reinitializes it, nobody holding it.
        let load = try FirnRun.run(["load", db], stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        #expect(load.status == 0, "\(load.stderr)")
    }

    @Test func notADatabaseFileExits66() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("adir"), withIntermediateDirectories: false)
        #expect(mkfifo(dir.file("fifo"), 0o644) == 0)
        #expect(FileManager.default.createFile(atPath: dir.file("empty"), contents: Data()))
        #expect(FileManager.default.createFile(atPath: dir.file("text"), contents: Data(String(repeating: "not a database\n", count: 1000).utf8)))
        for name in ["adir", "fifo", "empty", "text"] {
            try Self.expectNoCrash(dir.file(name), allowed: [66], name)
            for command in [["compact"], ["hold", "--seconds", "0"], ["compact", "-o", dir.file("out.firn")]] {
                let run = try FirnRun.run([command[0], dir.file(name)] + command.dropFirst(), timeout: 20)
                #expect(run.status == 66 && run.isCleanFailure, "\(name) \(command): \(run.stderr)")
            }
        }
        let text = try FirnRun.run(["info", dir.file("text")])
        #expect(text.stderr.contains("not a Firn database"))
        #expect(dir.entries() == ["adir", "empty", "fifo", "text"])
    }
}
