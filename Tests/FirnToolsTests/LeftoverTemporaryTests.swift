import Foundation
import Testing
import FirnTools
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// Temporary files of killed runs (`.<name>.firn-tmp-<pid>-<random>` of an
/// output, `<name>.creating-<pid>-<random>` of a new database) are removed by
/// the next run that writes the same destination — only when their creator
/// is gone and nobody holds their lock; anything else is left alone.
@Suite struct LeftoverTemporaryTests {
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

    /// Leftovers planted next to a destination: which must go, which must stay.
    struct Planted {
        var removable: [String] = []
        var kept: [String] = []
        /// Files this process holds locked (as a live creator would).
        var lockedDescriptors: [Int32] = []

        func release() { for fd in lockedDescriptors { close(fd) } }
    }

    static func create(_ path: String, lock: Bool = false) -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        _ = write(fd, "leftover", 8)
        if lock {
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd
        }
        close(fd)
        return nil
    }

    /// `prefix` is the temporary-name prefix for the destination (without
    /// the directory), e.g. ".out.firn.firn-tmp-".
    static func plant(in dir: TemporaryDirectory, prefix: String, otherPrefix: String) throws -> Planted {
        let dead = try deadPID()
        var planted = Planted()
        // The owner is gone and nobody holds the file: removed.
        planted.removable.append(prefix + "\(dead)-12345")
        // The pid in the name is gone, but a live process holds the lock (pid reuse, another pid namespace): kept.
        let lockedByLive = prefix + "\(dead)-777"
        // A live owner (this process): kept.
        planted.kept.append(prefix + "\(getpid())-999")
        // Another destination's leftover, and names that do not match the pattern exactly: kept.
        planted.kept.append(otherPrefix + "\(dead)-1")
        planted.kept.append(prefix + "\(dead)-1x")
        planted.kept.append(prefix + "\(dead)")
        planted.kept.append(prefix + "x\(dead)-1")
        for name in planted.removable + planted.kept { _ = create(dir.file(name)) }
        if let fd = create(dir.file(lockedByLive), lock: true) { planted.lockedDescriptors.append(fd) }
        planted.kept.append(lockedByLive)
        return planted
    }

    static func check(_ planted: Planted, in dir: TemporaryDirectory, after command: String) {
        let entries = Set(dir.entries())
        for name in planted.removable {
            #expect(!entries.contains(name), "\(command): the leftover \(name) of a dead process stayed")
        }
        for name in planted.kept {
            #expect(entries.contains(name), "\(command): \(name) was removed but is not a dead process's leftover")
        }
    }

    @Test func killedImportLeavesATemporaryFileThatTheNextImportRemoves() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let frame = try Data(contentsOf: URL(fileURLWithPath: dir.file("snap.lz4")))
        let input = Pipe()
        let process = try ChildProcess(BuiltProducts.firn, ["import", "-", "-o", dir.file("restored.firn")], input: input)
        try input.fileHandleForWriting.write(contentsOf: frame.prefix(frame.count / 2))
        let deadline = ContinuousClock.now + .seconds(20)
        while !dir.entries().contains(where: { $0.hasPrefix(".restored.firn.firn-tmp-") }) && ContinuousClock.now < deadline {
            usleep(5_000)
        }
        usleep(100_000)
        process.kill(SIGKILL)
        process.waitForExit()
        try? input.fileHandleForWriting.close()
        let leftovers = dir.entries().filter { $0.hasPrefix(".restored.firn.firn-tmp-") }
        #expect(leftovers.count == 1, "a killed import leaves its temporary file: \(dir.entries())")

        let run = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(dir.entries().filter { $0.hasPrefix(".restored.firn") }.isEmpty, "\(dir.entries())")
        #expect(try FirnRun.run(["verify", dir.file("restored.firn")]).status == 0)
    }

    @Test(arguments: ["compact -o", "compact in place", "export -o", "import", "growth --svg"])
    func aLaterRunRemovesDeadLeftoversOfItsDestinationOnly(_ command: String) throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let (destination, arguments): (String, [String]) = switch command {
        case "compact -o": ("out.firn", ["compact", db, "-o", dir.file("out.firn")])
        case "compact in place": ("sample.firn", ["compact", db])
        case "export -o": ("out.lz4", ["export", db, "-o", dir.file("out.lz4")])
        case "import": ("out.firn", ["import", dir.file("snap.lz4"), "-o", dir.file("out.firn")])
        default: ("chart.svg", ["growth", db, "--svg", dir.file("chart.svg")])
        }
        let planted = try Self.plant(in: dir, prefix: ".\(destination).firn-tmp-", otherPrefix: ".other.firn.firn-tmp-")
        defer { planted.release() }
        let run = try FirnRun.run(arguments)
        #expect(run.status == 0, "\(command): \(run.stderr)")
        Self.check(planted, in: dir, after: command)
    }

    @Test func creatingADatabaseRemovesDeadLeftoversOfAnEarlierCreation() throws {
        let dir = try TemporaryDirectory()
        let planted = try Self.plant(in: dir, prefix: "new.firn.creating-", otherPrefix: "other.firn.creating-")
        defer { planted.release() }
        let run = try FirnRun.run(["load", dir.file("new.firn")], stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        #expect(run.status == 0, "\(run.stderr)")
        Self.check(planted, in: dir, after: "load")
    }
}
