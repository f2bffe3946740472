import Foundation
import Testing
import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// The lock file is a hint; the data file is the truth (issue 33 §2,
/// FORMAT.md 2.1 and 11): a lock file nobody holds vouches for nothing, so
/// every open — read-only ones included — checks the data file instead of
/// trusting the version it publishes.
@Suite struct LockFileHintTests {
    /// A database made as a user makes one (`firn load`), with the commit
    /// log, three entries in tree "t" over two loads.
    static func loadedDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.file("app.firn")
        for lines in ["\"t\"\t\"a\"\t\"1\"\n\"t\"\t\"b\"\t\"2\"\n", "\"t\"\t\"c\"\t\"3\"\n"] {
            let run = try FirnRun.run(["load", db, "--no-progress"], stdin: Data(lines.utf8))
            try #require(run.status == 0, "load: \(run.stderr)")
        }
        return db
    }

    static func entries(_ db: String) throws -> FirnRun {
        try FirnRun.run(["dump", db, "--entries"])
    }

    /// The read-only commands a user runs on a database: each exits 0.
    static func expectReadable(_ db: String, _ context: String) throws {
        for command in [["dump", "--entries"], ["verify"], ["info"], ["versions"]] {
            let run = try FirnRun.run([command[0], db] + command.dropFirst())
            #expect(run.status == 0 && run.isCleanFailure, "\(context): \(command): exit \(run.status): \(run.stderr)")
        }
    }

    @Test func aBackupCopiedOverTheFileAfterLoadAndCheckpointIsRead() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let backup = dir.file("backup.firn")
        try FileManager.default.copyItem(atPath: db, toPath: backup)
        let before = try Self.entries(db)
        try #require(before.status == 0)
        let load = try FirnRun.run(["load", db, "--no-progress"], stdin: Data("\"t\"\t\"d\"\t\"4\"\n".utf8))
        try #require(load.status == 0, "\(load.stderr)")
        let checkpoint = try FirnRun.run(["checkpoint", db])
        try #require(checkpoint.status == 0, "\(checkpoint.stderr)")
        let inode = try LockBytes.inode(db)
        // `cp backup.firn app.firn`: the same inode, the lock file left beside it.
        try LockBytes.overwriteInPlace(db, with: backup)
        #expect(try LockBytes.inode(db) == inode)
        try Self.expectReadable(db, "restored backup")
        #expect(try Self.entries(db).stdout == before.stdout)
    }

    /// `firn hold` on `db`, once it said it pinned a version.
    static func hold(_ db: String) throws -> ChildProcess {
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db])
        try #require(hold.readLine() != nil)
        return hold
    }

    /// Raises the version `lock` publishes by `distance`: the new one.
    static func publishBeyond(_ lock: String, by distance: UInt64) throws -> UInt64 {
        let beyond = try LockBytes.read64(lock, at: LockFileLayout.latestVersionOffset) + distance
        try LockBytes.write64(lock, at: LockFileLayout.latestVersionOffset, beyond)
        return beyond
    }

    /// `loadedDatabase`, its entries as `entries` shows them, its lock file
    /// and the version the lock file publishes.
    static func loadedAndPublished(_ dir: TemporaryDirectory) throws -> (db: String, before: FirnRun, lock: String, published: UInt64) {
        let db = try loadedDatabase(dir)
        let before = try entries(db)
        let lock = db + ".lock"
        return (db, before, lock, try LockBytes.read64(lock, at: LockFileLayout.latestVersionOffset))
    }

    @Test func aLowerPublishedVersionNobodyHoldsDoesNotShowOldData() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let before = try Self.entries(db)
        try #require(before.status == 0 && before.stdout.contains("\"c\""))
        try LockBytes.write64(db + ".lock", at: LockFileLayout.latestVersionOffset, 1)
        let after = try Self.entries(db)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout == before.stdout)
    }

    @Test func aFlippedByteInThePublishedVersionNobodyHoldsIsIgnored() throws {
        let dir = try TemporaryDirectory()
        let (db, before, lock, published) = try Self.loadedAndPublished(dir)
        try LockBytes.write64(lock, at: LockFileLayout.latestVersionOffset, published ^ 0x40)
        try Self.expectReadable(db, "flipped byte")
        #expect(try Self.entries(db).stdout == before.stdout)
        try LockBytes.write64(lock, at: LockFileLayout.latestVersionOffset, published ^ 0x4000)
        let pins = try FirnRun.run(["pins", db, "--clear-stale"])
        #expect(pins.status == 0, "\(pins.stderr)")
    }

    @Test func anotherDatabasesLockFileCopiedBesideIsTakenOver() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let before = try Self.entries(db)
        // Another database, further along, and its lock file copied over ours.
        let other = dir.file("other.firn")
        for key in 0..<6 {
            let run = try FirnRun.run(["load", other, "--no-progress"], stdin: Data("\"o\"\t\"k\(key)\"\t\"v\"\n".utf8))
            try #require(run.status == 0, "\(run.stderr)")
        }
        try LockBytes.overwriteInPlace(db + ".lock", with: other + ".lock")
        try Self.expectReadable(db, "another file's lock file")
        #expect(try Self.entries(db).stdout == before.stdout)
        // Taken over, not ignored: the read is pinned.
        let info = try FirnRun.run(["info", db, "--json"])
        #expect(info.status == 0 && !info.stderr.contains("without a pin"), "\(info.stderr)")
        #expect(try info.json(InfoJSON.self).pinned)
    }

    /// What a power loss during a group of deferred commits leaves: a lock
    /// file publishing (latest and durable) versions the data file never
    /// got, and no process holding it.
    @Test func versionsBeyondTheFileInALockFileNobodyHoldsAreNotTrusted() throws {
        let dir = try TemporaryDirectory()
        let (db, before, lock, published) = try Self.loadedAndPublished(dir)
        try LockBytes.write64(lock, at: LockFileLayout.latestVersionOffset, published + 5)
        try LockBytes.write64(lock, at: LockFileLayout.durableVersionOffset, published + 5)
        try Self.expectReadable(db, "versions beyond the file")
        #expect(try Self.entries(db).stdout == before.stdout)
        #expect(try LockBytes.read64(lock, at: LockFileLayout.latestVersionOffset) == published)
        // A writer goes on from the file's version, not the lock file's.
        let load = try FirnRun.run(["load", db, "--json", "--no-progress"], stdin: Data("\"t\"\t\"d\"\t\"4\"\n".utf8))
        #expect(load.status == 0, "\(load.stderr)")
        #expect(try Self.entries(db).stdout.contains("\"d\""))
    }

    // MARK: Held lock files

    /// Every command that opens `db`, read-only or writing, exits 75 naming
    /// the lock file and the version it publishes, never a data page.
    static func expectLockFileBlamed(_ db: String, published: UInt64, _ context: String) throws {
        let load = ["load", db, "--lock-timeout", "5", "--no-progress"]
        for command in [["dump", db, "--entries"], ["verify", db], ["info", db], load] {
            let run = try FirnRun.run(command, stdin: command == load ? Data("\"t\"\t\"x\"\t\"9\"\n".utf8) : nil)
            #expect(run.status == 75 && run.isCleanFailure, "\(context): \(command[0]): exit \(run.status): \(run.stderr)")
            #expect(run.stderr.contains("firn: \(db).lock:") && run.stderr.contains("publishes version \(published)"),
                    "\(context): \(command[0]): \(run.stderr)")
            #expect(!run.stderr.contains("page"), "\(context): \(command[0]): \(run.stderr)")
        }
    }

    @Test func aPublishedVersionBeyondTheFileWhileHeldIs75NamingTheLockFile() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let before = try Self.entries(db)
        let hold = try Self.hold(db)
        let lock = db + ".lock"
        let beyond = try Self.publishBeyond(lock, by: 50)
        try Self.expectLockFileBlamed(db, published: beyond, "log file")
        // The holder is never reinitialized under: the lock file still says so.
        #expect(try LockBytes.read64(lock, at: LockFileLayout.latestVersionOffset) == beyond)
        hold.kill(SIGINT)
        #expect(hold.waitForExit() == 0)
        // Once nobody holds it, the data file decides.
        #expect(try Self.entries(db).stdout == before.stdout)
    }

    /// A published version lowered below the file's while a holder is alive
    /// (a damaged lock file): a writer re-checks the data file, takes its
    /// log's durable version, and commits on top of it — never on the
    /// checkpoint alone, which would drop the acknowledged frames after it.
    @Test func aLowerPublishedVersionWhileHeldLosesNoAcknowledgedCommit() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let hold = try Self.hold(db)
        let lock = db + ".lock"
        try LockBytes.write64(lock, at: LockFileLayout.latestVersionOffset, 1)
        let load = try FirnRun.run(["load", db, "--no-progress"], stdin: Data("\"t\"\t\"d\"\t\"4\"\n".utf8))
        #expect(load.status == 0, "\(load.stderr)")
        hold.kill(SIGINT)
        #expect(hold.waitForExit() == 0)
        let after = try Self.entries(db)
        for key in ["a", "b", "c", "d"] {
            #expect(after.stdout.contains("\"t\"\t\"\(key)\""), "entry \(key) lost: \(after.stdout)")
        }
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// The same on a file written with page commits (no commit log): the
    /// writer's check is on its base record, not on a log.
    @Test func aPublishedVersionBeyondAPageCommitFileWhileHeldIs75NamingTheLockFile() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try Self.hold(db)
        defer { withExtendedLifetime(hold) {} }  // held for the whole test
        let beyond = try Self.publishBeyond(db + ".lock", by: 1)
        try Self.expectLockFileBlamed(db, published: beyond, "page commits")
    }

    @Test func aBackupCopiedOverTheFileWhileHeldIs75NamingTheLockFile() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let backup = dir.file("backup.firn")
        try FileManager.default.copyItem(atPath: db, toPath: backup)
        let load = try FirnRun.run(["load", db, "--no-progress"], stdin: Data("\"t\"\t\"d\"\t\"4\"\n".utf8))
        try #require(load.status == 0, "\(load.stderr)")
        try #require(try FirnRun.run(["checkpoint", db]).status == 0)
        let hold = try Self.hold(db)
        defer { withExtendedLifetime(hold) {} }  // held for the whole test
        let published = try LockBytes.read64(db + ".lock", at: LockFileLayout.latestVersionOffset)
        try LockBytes.overwriteInPlace(db, with: backup)
        try Self.expectLockFileBlamed(db, published: published, "restored under a holder")
    }

    // MARK: Reader slots left behind

    /// A pid no process holding the lock file has (its liveness byte is
    /// never locked): a process that died.
    static let deadPID: Int32 = 2_147_483_632

    /// Sets reader slot `index`'s state word and pid (FORMAT.md 11).
    static func leaveSlot(_ lock: String, _ index: Int, state: UInt32, pid: Int32) throws {
        let offset = LockFileLayout.readerTableOffset + index * 128
        try LockBytes.write32(lock, at: offset, state)
        try LockBytes.write32(lock, at: offset + 4, UInt32(bitPattern: pid))
    }

    static func readerSlotCount(_ lock: String) throws -> Int {
        Int(try LockBytes.read64(lock, at: LockFileLayout.readerSlotCountOffset) & 0xFFFF_FFFF)
    }

    /// Every reader slot `claiming` (generation 1) under a process that
    /// died before publishing it, nobody holding the lock file.
    @Test func deadClaimingReaderSlotsAreReclaimed() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let before = try Self.entries(db)
        let lock = db + ".lock"
        let slots = try Self.readerSlotCount(lock)
        #expect(slots == 126)
        for index in 0..<slots { try Self.leaveSlot(lock, index, state: 0x101, pid: Self.deadPID) }
        try Self.expectReadable(db, "dead claiming slots")
        #expect(try Self.entries(db).stdout == before.stdout)
    }

    /// The same while a holder is alive (in slot 0): slots `claiming` under
    /// dead processes and slots in a state no process writes (5) — even
    /// under the live holder's pid — are freed; the holder's pin stays.
    @Test func deadClaimingAndUndefinedReaderSlotsAreReclaimedWhileHeld() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--label", "holder"])
        try #require(hold.readLine() != nil)
        let lock = db + ".lock"
        let slots = try Self.readerSlotCount(lock)
        for index in 1..<slots {
            if index % 2 == 1 {
                try Self.leaveSlot(lock, index, state: 0x101, pid: Self.deadPID)
            } else {
                try Self.leaveSlot(lock, index, state: 0x105, pid: hold.pid)
            }
        }
        try Self.expectReadable(db, "abandoned slots beside a holder")
        let pins = try FirnRun.run(["pins", db, "--json"])
        #expect(pins.status == 0, "\(pins.stderr)")
        let report = try pins.json(PinsJSON.self)
        #expect(report.pins.map(\.label) == ["holder"] && report.pins.map(\.pid) == [hold.pid], "\(report.pins)")
    }

    // MARK: A lock file truncated under `firn hold`

    /// Truncated once `hold` holds its pin: its first line comes after the
    /// pin is set and its snapshot made, so the truncation falls where hold
    /// watches for one (`Hold.checkLockFile`). A truncation while the pin
    /// protocol itself runs is the moment `LockFile.checkMapped` does not
    /// cover (SIGBUS); waiting only for the reader slot to turn active let
    /// this test truncate there on a loaded machine.
    @Test func holdExits65NamingItsLockFileWhenItIsTruncated() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let lock = db + ".lock"
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--seconds", "60"])
        try #require(hold.readLine() != nil, "\(hold.errorOutput())")
        #expect(truncate(lock, 0) == 0)
        let status = hold.waitForExit(timeout: .seconds(120))
        let stderr = hold.errorOutput()
        #expect(status == 65 && !hold.wasSignalled, "exit \(String(describing: status)): \(stderr)")
        #expect(stderr.contains("firn: \(lock):") && stderr.contains("truncated"), "\(stderr)")
    }

    /// Interrupted right after the truncation: it lets go of its pin
    /// without touching the lock file.
    @Test func holdInterruptedAfterItsLockFileWasTruncatedDoesNotCrash() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.loadedDatabase(dir)
        let hold = try Self.hold(db)
        #expect(truncate(db + ".lock", 100) == 0)
        hold.kill(SIGINT)
        #expect(hold.waitForExit() == 65)
        #expect(!hold.wasSignalled)
    }
}

/// Byte edits of a lock file in place (never truncating it: a process
/// holding it has it mapped), and a copy over a file that keeps its inode,
/// as `cp` does.
enum LockBytes {
    static func read64(_ path: String, at offset: Int) throws -> UInt64 {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(offset + 8 <= bytes.count)
        return (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    static func write64(_ path: String, at offset: Int, _ value: UInt64) throws {
        try write(path, at: offset, (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) })
    }

    static func write32(_ path: String, at offset: Int, _ value: UInt32) throws {
        try write(path, at: offset, (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) })
    }

    static func write(_ path: String, at offset: Int, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0, "open \(path): errno \(errno)")
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        try #require(written == bytes.count, "pwrite \(path): errno \(errno)")
    }

    /// `cp source path`: truncates `path` and writes `source`'s bytes into it.
    static func overwriteInPlace(_ path: String, with source: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(path, O_WRONLY | O_TRUNC)
        try #require(fd >= 0, "open \(path): errno \(errno)")
        defer { close(fd) }
        let failure = data.withUnsafeBytes { SystemCall.writeAll(fd, $0) }
        try #require(failure == nil, "write \(path): \(String(describing: failure))")
    }

    static func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return UInt64(info.st_ino)
    }
}
