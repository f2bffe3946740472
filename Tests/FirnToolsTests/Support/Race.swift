import Foundation
import Synchronization
import Testing
import FirnCore
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What the replacement races share (`ReplacementRaceTests`,
/// `LogReplacementRaceTests`): the database they start from, the in-place
/// replacements, what the racing processes did, the threads that run them
/// and the watch on the renames.
enum Race {
    /// In-place compaction loops beside the writers.
    static let compactors = 2

    /// A small database (a `base` tree of 200 entries) so each replacement is quick.
    static func createDatabase(_ db: String) throws {
        let lines = (0..<200).map { "\"base\"\t\"b\($0)\"\t\"base value \($0)\"" }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: db + ".input-base"))
        let run = try FirnRun.run(["load", db, "--input", db + ".input-base", "--no-progress"])
        try #require(run.status == 0, "creating \(db): \(run.stderr)")
    }

    /// Runs one in-place replacement; true when it exited 0.
    @discardableResult
    static func replace(_ arguments: [String], what: String, record: RaceRecord) -> Bool {
        do {
            let result = try FirnRun.run(arguments, timeout: 120)
            switch (result.status, result.crashed || result.timedOut) {
            case (0, false):
                record.replaced()
                return true
            case (75, false):
                record.refuseReplacement()
            default:
                record.fail("\(what): \(result.exit): \(result.stderr)", code: result.status)
            }
        } catch {
            record.fail("\(what): \(error)")
        }
        return false
    }

    /// An export of `db` (`base.lz4` in `dir`): the snapshot the imports restore.
    static func exportBase(_ db: String, in dir: TemporaryDirectory) throws -> String {
        let base = dir.file("base.lz4")
        let export = try FirnRun.run(["export", db, "-o", base, "--no-progress"])
        try #require(export.status == 0, "export: \(export.stderr)")
        return base
    }

    /// The arguments of an in-place replacement of `db`: "compact", or
    /// "import --force" of `base`.
    static func replacement(_ kind: String, of db: String, base: String) -> [String] {
        kind == "compact" ? ["compact", db, "--lock-timeout", "0", "--no-progress"] : ["import", base, "-o", db, "--force", "--no-progress"]
    }

    /// Replaces `db` in place (`kind`, as `replacement` says) in a loop until `deadline`.
    static func loop(_ kind: String, _ db: String, base: String = "", until deadline: ContinuousClock.Instant,
                     record: RaceRecord) -> @Sendable () -> Void {
        {
            while ContinuousClock.now < deadline {
                replace(replacement(kind, of: db, base: base), what: kind.split(separator: " ")[0].description, record: record)
            }
        }
    }

    /// `firn import --force BASE -o DB` in a loop until `deadline`. Before
    /// each import the database is hard-linked to `gen-K.firn` in `dir`, so
    /// the file it replaces survives with everything committed into it;
    /// each replaced file goes into `replaced` with the time `watcher` saw
    /// the rename onto the database (at or after the rename itself).
    static func importGenerations(_ db: String, base: String, in dir: TemporaryDirectory, watcher: RenameWatcher,
                                  until deadline: ContinuousClock.Instant, record: RaceRecord,
                                  into replaced: Box<[(path: String, renamedAt: UInt64)]>) -> @Sendable () -> Void {
        {
            var generation = 0
            while ContinuousClock.now < deadline {
                let kept = dir.file("gen-\(generation).firn")
                guard link(db, kept) == 0 else {
                    record.fail("link \(db) → \(kept): errno \(errno)")
                    return
                }
                let seen = watcher.count
                if replace(replacement("import", of: db, base: base), what: "import", record: record) {
                    guard let renamedAt = watcher.waitForRename(after: seen, timeout: 10) else {
                        record.fail("import \(generation): exit 0 but no rename onto \(db) was observed")
                        return
                    }
                    replaced.update { $0.append((kept, renamedAt)) }
                    generation += 1
                } else {
                    unlink(kept)
                }
            }
        }
    }

    /// `count` `firn-testkit commit-check` children (prefixes s0, s1, …),
    /// each for `seconds` with pauses of up to `pauseMilliseconds` and
    /// `options` after those; their runs go into `children`.
    static func commitCheckers(_ db: String, count: Int, seconds: Int64, pauseMilliseconds: Int, options: [String] = [],
                               record: RaceRecord, into children: Box<[WriterRun]>) -> [@Sendable () -> Void] {
        (0..<count).map { writer in
            {
                let prefix = "s\(writer)"
                do {
                    let run = try FirnRun.run(["commit-check", db, prefix, "\(seconds)", "\(pauseMilliseconds)"] + options,
                                              timeout: Double(seconds) + 120, executable: BuiltProducts.testkit)
                    children.update { $0.append(WriterRun(prefix: prefix, run: run)) }
                } catch {
                    record.fail("firn-testkit commit-check \(prefix): \(error)")
                }
            }
        }
    }

    /// `firn-testkit open-paused-commit` (with `options`) opens `db` and
    /// stops right after the data file is opened; `db` is replaced in place
    /// (`kind`, of `base`) meanwhile, then the open goes on. The child, to
    /// read what its session did, and the replacement's run (0, or 75:
    /// refused because the store held its session already).
    static func replacedWhilePaused(_ db: String, base: String, in dir: TemporaryDirectory, by kind: String,
                                    options: [String] = []) throws -> (child: ChildProcess, replaced: FirnRun) {
        let go = dir.file("go")
        let child = try ChildProcess.testkit(["open-paused-commit", db, "paused", go] + options)
        let opened = child.readLine(timeout: .seconds(60))
        try #require(opened == "opened", "open-paused-commit said \(opened ?? "nothing")")
        let replaced = try FirnRun.run(replacement(kind, of: db, base: base))
        #expect(replaced.status == 0 || replaced.status == 75, "\(kind): exit \(replaced.status): \(replaced.stderr)")
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        return (child, replaced)
    }

    /// The keys of `tree` in `db` as `firn dump --entries` shows them.
    static func keysInFile(_ db: String, tree: String) throws -> Set<String> {
        let dump = try FirnRun.run(["dump", db, "--entries", "--tree", tree, "--no-progress"], timeout: 120)
        try #require(dump.status == 0, "dump \(db): exit \(dump.status): \(dump.stderr)")
        var keys = Set<String>()
        for line in dump.stdout.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].count >= 2 else { continue }
            keys.insert(String(fields[1].dropFirst().dropLast()))
        }
        return keys
    }

    /// The keys of `tree` at `snapshot`, in key order (a cursor, which
    /// merges the log's frames over their checkpoint).
    static func keys(of snapshot: Snapshot, tree name: String) throws -> [String] {
        var keys: [String] = []
        guard let tree = try snapshot.tree(name) else { return keys }
        let cursor = tree.cursor()
        try cursor.first()
        while cursor.isValid {
            keys.append(String(decoding: try cursor.key ?? [], as: UTF8.self))
            try cursor.next()
        }
        return keys
    }

    /// `firn verify` finds `db` clean after a race.
    static func expectVerifies(_ db: String) throws {
        let verify = try FirnRun.run(["verify", db, "--no-progress"], timeout: 120)
        #expect(verify.status == 0, "verify \(db): \(verify.stdout.suffix(500)) \(verify.stderr)")
    }
}

/// One `commit-check` child's run.
struct WriterRun: Sendable {
    let prefix: String
    let run: FirnRun
}

extension ChildProcess.Outcome {
    /// "exit N", and whether it crashed or timed out.
    var exit: String {
        "exit \(status)\(crashed ? " (crashed)" : "")\(timedOut ? " (timed out)" : "")"
    }
}

struct AcknowledgedLoad: Sendable {
    let keys: [String]
    /// The version of the load's last commit (its report's `version`).
    let version: UInt64
}

/// What the racing processes did, shared by the threads running them.
final class RaceRecord: Sendable {
    private struct State {
        var acknowledged: [AcknowledgedLoad] = []
        var refusedLoads = 0
        var replacements = 0
        var refusedReplacements = 0
        var failures: [String] = []
        var failureCodes: [Int32: Int] = [:]
    }
    private let state = Mutex(State())

    var acknowledged: [AcknowledgedLoad] { state.withLock { $0.acknowledged } }
    var refusedLoads: Int { state.withLock { $0.refusedLoads } }
    var replacements: Int { state.withLock { $0.replacements } }
    var refusedReplacements: Int { state.withLock { $0.refusedReplacements } }
    var failures: [String] { state.withLock { $0.failures } }
    /// "exit N × count" of the failed processes.
    var failureCodes: String {
        state.withLock { s in
            s.failureCodes.isEmpty ? "" : "(" + s.failureCodes.sorted { $0.key < $1.key }
                .map { "exit \($0.key) × \($0.value)" }.joined(separator: ", ") + ")"
        }
    }

    func acknowledge(_ load: AcknowledgedLoad) { state.withLock { $0.acknowledged.append(load) } }
    func refuseLoad() { state.withLock { $0.refusedLoads += 1 } }
    func replaced() { state.withLock { $0.replacements += 1 } }
    func refuseReplacement() { state.withLock { $0.refusedReplacements += 1 } }
    func fail(_ what: String, code: Int32 = -1) {
        state.withLock { s in
            s.failures.append(what)
            s.failureCodes[code, default: 0] += 1
        }
    }
}

/// Runs each body on its own thread and waits for all of them.
func runConcurrently(_ bodies: [@Sendable () -> Void]) {
    let group = DispatchGroup()
    for body in bodies {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}

/// Timestamps (CLOCK_REALTIME, nanoseconds) of every rename onto `name` in
/// `directory`, seen through inotify by a thread of its own: each is taken
/// when the event is read, so at or after the rename itself.
final class RenameWatcher: Sendable {
    private let fd: Int32
    private let times = Mutex<[UInt64]>([])
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(directory: String, name: String) throws {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO)) >= 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        let thread = Thread { [self] in
            self.watch(name: name)
            self.finished.signal()
        }
        thread.start()
    }

    /// Renames seen so far.
    var count: Int { times.withLock { $0.count } }

    /// The time of the first rename after the first `seen`, waiting up to `timeout` seconds.
    func waitForRename(after seen: Int, timeout: Double) -> UInt64? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let time = times.withLock({ $0.count > seen ? $0[seen] : nil }) { return time }
            usleep(1_000)
        }
        return nil
    }

    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        finished.wait()
        close(fd)
    }

    private func watch(name: String) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let header = MemoryLayout<inotify_event>.size
        while !stopping.load(ordering: .sequentiallyConsistent) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            let now = realtimeNanoseconds()
            var offset = 0
            while offset + header <= count {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)]
                let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if mask & UInt32(IN_MOVED_TO) != 0 && eventName == name {
                    times.withLock { $0.append(now) }
                }
                offset += header + length
            }
        }
    }
}

func realtimeNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
