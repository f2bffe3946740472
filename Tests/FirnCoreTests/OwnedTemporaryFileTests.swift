import Foundation
import Testing
@testable import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// Temporary files name and lock their owner; only a dead owner's unlocked
/// file of the exact pattern is ever removed.
@Suite struct OwnedTemporaryFileTests {
    /// A pid no process can have: pids run below the kernel's pid_max, so
    /// pid_max itself is always free. (The pid of an exited child was used
    /// before; with pid_max at 32768 and the race suites starting thousands
    /// of processes in parallel, it was sometimes reused — by a live process.)
    static func deadPID() throws -> Int32 {
        let text = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
        let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        return pid
    }

    @Test func onlyTheExactPatternNamesAnOwner() {
        let prefix = ".db.firn.firn-tmp-"
        #expect(OwnedTemporaryFile.ownerPID(".db.firn.firn-tmp-123-456", prefix: prefix) == 123)
        #expect(OwnedTemporaryFile.ownerPID(".db.firn.firn-tmp-123-4294967295", prefix: prefix) == 123)
        for name in [".db.firn.firn-tmp-123", ".db.firn.firn-tmp-123-", ".db.firn.firn-tmp--456", ".db.firn.firn-tmp-0-1",
                     ".db.firn.firn-tmp-+1-2", ".db.firn.firn-tmp-1-2-3", ".db.firn.firn-tmp-1-4294967296",
                     ".db.firn.firn-tmp-99999999999-1", ".db.firn.firn-tmp-1-2.bak", "x.db.firn.firn-tmp-1-2",
                     ".db.firn2.firn-tmp-1-2", ".db.firn.firn-tmp-١-2"] {
            #expect(OwnedTemporaryFile.ownerPID(name, prefix: prefix) == nil, "\(name)")
        }
    }

    @Test func aLockedFileStaysUntilItsOwnerLetsGo() throws {
        let dir = try TemporaryDirectory()
        let name = "db.firn.creating-\(try Self.deadPID())-7"
        let fd = open(dir.file(name), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #expect(fd >= 0 && OwnedTemporaryFile.lock(fd))
        #expect(OwnedTemporaryFile.removeLeftovers(in: dir.path, prefixes: ["db.firn.creating-"]).isEmpty)
        #expect(access(dir.file(name), F_OK) == 0)
        close(fd)
        // The lock belongs to the open file description, and a process other
        // suites spawn at this moment holds a copy of it from fork until its
        // exec closes it (O_CLOEXEC) — so the file can stay locked a moment
        // after our close. Retry while that lasts; a lock that never goes
        // away still fails.
        var removed: [String] = []
        for _ in 0..<200 where removed.isEmpty {
            removed = OwnedTemporaryFile.removeLeftovers(in: dir.path, prefixes: ["db.firn.creating-"])
            if removed.isEmpty { usleep(10_000) }
        }
        #expect(removed == [name])
        #expect(access(dir.file(name), F_OK) != 0)
    }

    @Test func aSymlinkOrDirectoryOfTheRightNameIsNeverRemoved() throws {
        let dir = try TemporaryDirectory()
        let dead = try Self.deadPID()
        let target = dir.file("precious")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("keep".utf8)))
        #expect(symlink(target, dir.file(".db.firn-tmp-\(dead)-1")) == 0)
        #expect(mkdir(dir.file(".db.firn-tmp-\(dead)-2"), 0o755) == 0)
        #expect(OwnedTemporaryFile.removeLeftovers(in: dir.path, prefixes: [".db.firn-tmp-"]).isEmpty)
        #expect(access(target, F_OK) == 0 && access(dir.file(".db.firn-tmp-\(dead)-2"), F_OK) == 0)
    }

    @Test func creatingADatabaseInAMissingDirectoryNamesThePathNotItsTemporary() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("missing/app.firn")
        #expect(throws: FirnError.cannotCreate(path: path, detail: "the directory \(dir.file("missing")) does not exist")) {
            try Store.open(path)
        }
    }
}
