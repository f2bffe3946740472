import Foundation
import Synchronization
import Testing
import FirnCore
import FirnTools
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// Issue 7 §1: no process may ever commit into a file that has been replaced
/// at its path. In-place replacement (`firn compact FILE`, `firn import
/// --force SNAPSHOT -o FILE`) writes a new file and renames it over the
/// database; a process that opened the old file just before the rename and
/// took its session just after used to commit into the replaced inode, so
/// its acknowledged commits vanished (or it failed with 65, "lock file … is
/// not a Firn lock file (it belongs to another data file …)", a replaced
/// file reported as corruption).
///
/// Tested the way it failed: several processes commit in loops while
/// another replaces the file in place in a loop, for long enough to hit the
/// window many times over (duration-based loops, calibrated on 2 cores; the
/// numbers are by the durations below). Nothing here slows the engine down
/// or widens the window: every process is the real `firn` binary (or a
/// `firn-testkit` child using the SDK), run at full speed.
///
/// Exit status of every process: 0 (done) or 75 (busy: refused, nothing
/// committed) — anything else fails the test, 65 included.
@Suite(.serialized) struct ReplacementRaceTests {
    /// Load writers per scenario: each runs `firn load` over and over.
    static let writers = 4
    /// Entries per `firn load` run (one commit each: `--batch 1`).
    static let entriesPerLoad = 3
    /// In-place compaction loops beside the writers.
    static let compactors = 2

    // MARK: compact in place

    /// Writers run `firn load FILE --batch 1` in loops (keys `w<writer>-<run>-<n>`,
    /// unique per process and run) while two loops run `firn compact FILE
    /// --lock-timeout 0` — two, as an overlapping cron job would: each must
    /// get exclusivity or exit 75, and a compaction that opened the file just
    /// before the other's rename is one more process that must not work on a
    /// replaced file (two loops also make twice the renames per second).
    /// Compaction keeps every entry, so the rule is simply: every entry of
    /// every load that exited 0 is in the final file.
    @Test func compactInPlaceNeverLosesAnAcknowledgedLoad() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createDatabase(db)
        let record = RaceRecord()
        let deadline = ContinuousClock.now + .seconds(Self.compactSeconds)
        let started = ContinuousClock.now
        var processes: [@Sendable () -> Void] = (0..<Self.writers).map { writer in
            { Self.loadLoop(writer: writer, db: db, until: deadline, record: record) }
        }
        for _ in 0..<Self.compactors {
            processes.append {
                while ContinuousClock.now < deadline {
                    Self.replace(["compact", db, "--lock-timeout", "0", "--no-progress"], what: "compact", record: record)
                }
            }
        }
        runConcurrently(processes)
        let elapsed = ContinuousClock.now - started

        let present = try Self.keysInFile(db)
        let loads = record.acknowledged
        let acknowledgedKeys = loads.flatMap(\.keys)
        let missing = loads.filter { load in !load.keys.allSatisfy(present.contains) }
        let verify = try FirnRun.run(["verify", db, "--no-progress"], timeout: 120)
        print("ReplacementRaceTests.compact: \(elapsed): \(loads.count) acknowledged loads, "
              + "\(acknowledgedKeys.count) acknowledged entries checked, \(missing.count) loads lost entries "
              + "(\(missing.flatMap(\.keys).filter { !present.contains($0) }.count) entries); "
              + "\(record.refusedLoads) loads refused (75); \(record.replacements) compactions, "
              + "\(record.refusedReplacements) refused (75); \(record.failures.count) failed processes "
              + "\(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        let examples = missing.prefix(5).map { "\($0.keys.filter { !present.contains($0) }) of \($0.keys) (v\($0.version))" }
        #expect(missing.isEmpty, "\(missing.count) of \(loads.count) acknowledged loads lost entries, e.g. \(examples)")
        #expect(verify.status == 0, "verify: \(verify.stdout.suffix(500)) \(verify.stderr)")
        // The race was really run: many loads acknowledged, many compactions done.
        #expect(loads.count >= 200 && record.replacements >= 20,
                "\(loads.count) loads, \(record.replacements) compactions")
    }

    // MARK: import --force

    /// Writers as above while `firn import --force BASE -o FILE` runs in a
    /// loop; BASE is an export of the database taken once, before the race.
    ///
    /// An import *legitimately* drops every commit made before it: that is
    /// what restoring a snapshot means. So "every acknowledged entry is in
    /// the final file" would be false for a correct engine, and "the entries
    /// of loads that did not overlap an import" would never see the bug (the
    /// losing load always overlaps the import that replaced its file). The
    /// rule checked is the invariant itself, made observable:
    ///
    /// - Before each import, the test hard-links the database to
    ///   `gen-K.firn`, so the file that import K replaces survives with
    ///   everything ever committed into it (a hard link changes nothing for
    ///   the processes using the file: same inode).
    /// - An inotify watch on the directory timestamps each rename onto the
    ///   database's name (CLOCK_REALTIME, the clock commit records carry);
    ///   the observation comes at or after the rename, never before it.
    /// - A commit made before the rename has a commit time before it (the
    ///   commit record's time is taken before the record is written; the
    ///   import takes exclusivity only after the writer closed). A commit
    ///   into a file after the rename has replaced it has a later time.
    ///
    /// So after the race: (1) no replaced file `gen-K` has a commit whose
    /// time is after its observed rename — nobody committed into a replaced
    /// file (whether or not that load was acknowledged); (2) every
    /// acknowledged load's entries are either all in the final file, or all
    /// in one replaced file at a version committed before its rename
    /// (dropped by that import, legitimately); an entry found nowhere is
    /// lost. A late inotify observation can only hide a violation, never
    /// invent one (a wall-clock step backwards during the run could; commit
    /// records carry wall-clock time, so there is no better clock to use).
    /// The hard links are what a backup tool may leave too: an engine must
    /// tell a replaced file by comparing its descriptor with the path
    /// (device and inode), not by the old file's link count dropping to 0.
    @Test func importForceNeverLetsAWriterCommitIntoTheReplacedFile() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createDatabase(db)
        let base = dir.file("base.lz4")
        let export = try FirnRun.run(["export", db, "-o", base, "--no-progress"])
        try #require(export.status == 0, "export: \(export.stderr)")
        let watcher = try RenameWatcher(directory: dir.path, name: "race.firn")
        defer { watcher.stop() }
        let record = RaceRecord()
        let replaced = Box<[(path: String, renamedAt: UInt64)]>([])
        let deadline = ContinuousClock.now + .seconds(Self.importSeconds)
        // The imports stop a little before the writers, so that some loads
        // end up in the final file too.
        let importDeadline = deadline - .seconds(2)
        let started = ContinuousClock.now
        runConcurrently((0..<Self.writers).map { writer in
            { Self.loadLoop(writer: writer, db: db, until: deadline, record: record) }
        } + [{
            var generation = 0
            while ContinuousClock.now < importDeadline {
                let kept = dir.file("gen-\(generation).firn")
                guard link(db, kept) == 0 else {
                    record.fail("link \(db) → \(kept): errno \(errno)")
                    return
                }
                let seen = watcher.count
                if Self.replace(["import", base, "-o", db, "--force", "--no-progress"], what: "import", record: record) {
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
        }])
        let elapsed = ContinuousClock.now - started
        watcher.stop()

        try Self.loadAfterRace(db)
        let final = try Self.keysInFile(db)
        let files = replaced.value
        var committedAfterRename: [String] = []
        // key → (file index, commit time of the version by version) per replaced file.
        var location: [String: Int] = [:]
        var histories: [[UInt64: UInt64]] = []
        var newest: [(version: UInt64, time: UInt64)] = []
        for (index, file) in files.enumerated() {
            let contents = try Self.readReplacedFile(file.path)
            histories.append(contents.commitTimes)
            newest.append((contents.newestVersion, contents.newestCommitTime))
            for key in contents.keys { location[key] = index }
            if contents.newestCommitTime > file.renamedAt {
                committedAfterRename.append(
                    "\((file.path as NSString).lastPathComponent): v\(contents.newestVersion) committed "
                    + "\(Double(contents.newestCommitTime - file.renamedAt) / 1e6) ms after the rename that replaced it")
            }
        }
        var survived = 0, droppedByImport = 0
        var lost: [String] = [], intoReplacedFile: [String] = []
        for load in record.acknowledged {
            if load.keys.allSatisfy(final.contains) {
                survived += 1
                continue
            }
            let places = Set(load.keys.map { location[$0] })
            guard places.count == 1, let place = places.first, let index = place else {
                lost.append("\(load.keys) (v\(load.version)): in the final file: \(load.keys.filter(final.contains)), "
                            + "in replaced files: \(load.keys.compactMap { location[$0] })")
                continue
            }
            // A frame of an earlier log is in no record: it was committed no
            // later than the file's newest version, whose time bounds its own.
            let bound = load.version <= newest[index].version ? newest[index].time : nil
            guard let committed = histories[index][load.version] ?? bound else {
                lost.append("\(load.keys): v\(load.version) is not in the history of gen-\(index)")
                continue
            }
            if committed > files[index].renamedAt {
                intoReplacedFile.append("\(load.keys) v\(load.version) into gen-\(index), "
                                        + "\(Double(committed - files[index].renamedAt) / 1e6) ms after its rename")
            } else {
                droppedByImport += 1
            }
        }
        let verify = try FirnRun.run(["verify", db, "--no-progress"], timeout: 120)
        print("ReplacementRaceTests.import: \(elapsed): \(record.acknowledged.count) acknowledged loads "
              + "(\(record.acknowledged.count * Self.entriesPerLoad) entries checked): \(survived) in the final file, "
              + "\(droppedByImport) committed before an import replaced their file, \(intoReplacedFile.count) committed "
              + "into a replaced file, \(lost.count) lost; \(record.refusedLoads) loads refused (75); "
              + "\(record.replacements) imports, \(record.refusedReplacements) refused (75); "
              + "\(committedAfterRename.count) replaced files written after their rename; "
              + "\(record.failures.count) failed processes \(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        #expect(committedAfterRename.isEmpty, "commits into replaced files: \(committedAfterRename.prefix(5))")
        #expect(intoReplacedFile.isEmpty, "acknowledged loads that committed into a replaced file: \(intoReplacedFile.prefix(5))")
        #expect(lost.isEmpty, "acknowledged loads lost: \(lost.prefix(5))")
        #expect(verify.status == 0, "verify: \(verify.stdout.suffix(500)) \(verify.stderr)")
        #expect(record.acknowledged.count >= 200 && record.replacements >= 20 && survived > 0 && droppedByImport > 0,
                "\(record.acknowledged.count) loads, \(record.replacements) imports")
    }

    // MARK: the SDK: Store.open racing the rename

    /// `firn-testkit commit-check` children open the database with
    /// `Store.open`, commit one entry and, with that store still open (so no
    /// replacement may be under way), read the key back through the path;
    /// over and over. Meanwhile `firn compact` in place and `firn import
    /// --force` replace the file in loops. The rule, checked by the child at
    /// each commit: after a commit returns, and while the committing process
    /// still has the database open, the file at the path holds that commit.
    /// (Imports drop earlier commits legitimately; the check is done before
    /// any could run, so none is excused.) The children pause a random 0–20
    /// ms between transactions, as applications do: without gaps, three of
    /// them keep the database open all the time and nothing is ever replaced.
    @Test func storeOpenedAcrossAReplacementNeverCommitsIntoTheReplacedFile() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createDatabase(db)
        let base = dir.file("base.lz4")
        let export = try FirnRun.run(["export", db, "-o", base, "--no-progress"])
        try #require(export.status == 0, "export: \(export.stderr)")
        let record = RaceRecord()
        let children = Box<[(prefix: String, run: FirnRun)]>([])
        let seconds = Self.sdkSeconds
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let sdkWriters = 3
        runConcurrently((0..<sdkWriters).map { writer in
            {
                let prefix = "s\(writer)"
                do {
                    let run = try FirnRun.run(["commit-check", db, prefix, "\(seconds)", "\(Self.sdkPauseMilliseconds)"],
                                              timeout: Double(seconds) + 120, executable: BuiltProducts.testkit)
                    children.update { $0.append((prefix, run)) }
                } catch {
                    record.fail("firn-testkit commit-check \(prefix): \(error)")
                }
            }
        } + [{
            while ContinuousClock.now < deadline {
                Self.replace(["compact", db, "--lock-timeout", "0", "--no-progress"], what: "compact", record: record)
            }
        }, {
            while ContinuousClock.now < deadline {
                Self.replace(["import", base, "-o", db, "--force", "--no-progress"], what: "import", record: record)
            }
        }])
        let elapsed = ContinuousClock.now - started

        try Self.loadAfterRace(db)
        var acknowledged = 0, busy = 0
        var missing: [String] = [], errors: [String] = []
        for (prefix, run) in children.value {
            if run.status != 0 || run.crashed || run.timedOut {
                errors.append("\(prefix): exit \(run.status)\(run.crashed ? " (crashed)" : "")\(run.timedOut ? " (timed out)" : ""): \(run.stderr)")
            }
            for line in run.stdout.split(separator: "\n") {
                if line.hasPrefix("ack ") { acknowledged += 1 }
                else if line.hasPrefix("busy ") { busy += 1 }
                else if line.hasPrefix("missing ") { missing.append("\(prefix): \(line)") }
                else if line.hasPrefix("error ") { errors.append("\(prefix): \(line)") }
                else if !line.hasPrefix("done ") { errors.append("\(prefix): unexpected output: \(line)") }
            }
        }
        let verify = try FirnRun.run(["verify", db, "--no-progress"], timeout: 120)
        print("ReplacementRaceTests.sdk: \(elapsed): \(acknowledged) commits acknowledged and read back, "
              + "\(missing.count) committed into a replaced file, \(errors.count) errors, \(busy) busy; "
              + "\(record.replacements) replacements (compact + import), \(record.refusedReplacements) refused (75); "
              + "\(record.failures.count) failed processes \(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        #expect(missing.isEmpty, "\(missing.count) commits went into a replaced file: \(missing.prefix(5))")
        #expect(errors.isEmpty, "\(errors.count) errors: \(errors.prefix(5))")
        #expect(verify.status == 0, "verify: \(verify.stdout.suffix(500)) \(verify.stderr)")
        #expect(acknowledged >= 500 && record.replacements >= 20, "\(acknowledged) commits, \(record.replacements) replacements")
    }

    /// The same, deterministic: `firn-testkit open-paused-commit` opens the
    /// database with `Store.open` and stops right after the data file is
    /// opened (through `StoreOptions.wrapIO`, the SDK's hook on the file's
    /// I/O layer, which the engine calls as soon as the file is open); the
    /// test replaces the file meanwhile, then lets the open go on. The
    /// replacement may succeed (the store has no session yet) or be refused
    /// with 75 (an engine that holds the session by then); the store must
    /// then either commit into the file at the path (read back while it
    /// still has the database open) or refuse with busy — never commit into
    /// the replaced file, never report corruption.
    @Test(arguments: ["compact", "import --force"])
    func storeOpenedJustBeforeTheRenameNeverCommitsIntoTheReplacedFile(_ replacement: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createDatabase(db)
        let base = dir.file("base.lz4")
        let export = try FirnRun.run(["export", db, "-o", base, "--no-progress"])
        try #require(export.status == 0, "export: \(export.stderr)")
        let go = dir.file("go")
        let child = try ChildProcess.testkit(["open-paused-commit", db, "paused", go])
        let opened = child.readLine(timeout: .seconds(60))
        try #require(opened == "opened", "open-paused-commit said \(opened ?? "nothing")")
        let arguments = replacement == "compact"
            ? ["compact", db, "--lock-timeout", "0", "--no-progress"]
            : ["import", base, "-o", db, "--force", "--no-progress"]
        let replaced = try FirnRun.run(arguments)
        #expect(replaced.status == 0 || replaced.status == 75, "\(replacement): exit \(replaced.status): \(replaced.stderr)")
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        let line = child.readLine(timeout: .seconds(60)) ?? "nothing"
        print("ReplacementRaceTests.paused (\(replacement)): replacement exit \(replaced.status); the store: \(line)")
        #expect(line.hasPrefix("ack ") || line.hasPrefix("busy "),
                "after \(replacement) (exit \(replaced.status)) the store opened before it said: \(line)")
        #expect(child.waitForExit(timeout: .seconds(30)) == 0)
    }

    // MARK: durations (calibrated on 2 cores against the unfixed engine)
    //
    // Against the engine before the fix (issue 7), 6 runs of this suite
    // with these settings (one inside the whole `swift test`), all on a
    // shared 2-core machine: every test failed in every run.
    // - compact: 5–13 acknowledged loads lost per run (13–29 entries, out of
    //   1,932–2,901 checked) and 15–25 loads or compactions exiting 65;
    //   with one compaction loop instead of two, 16 runs (3–6 writers) lost
    //   0–11 loads each, one run none, hence two.
    // - import: 3–10 acknowledged loads committed into a replaced file per
    //   run (2,568–3,777 entries checked), 9–19 processes exiting 65.
    // - sdk: 31–64 `Store.open` calls failing with "not a Firn lock file"
    //   and 3–9 replacements exiting 65 per run (no commit into a replaced
    //   file seen at this rate; the paused test above shows that path).
    // - paused: both cases, every run: the commit went into the replaced file.
    // The suite takes about 110 s.

    static let compactSeconds: Int64 = 45
    static let importSeconds: Int64 = 40
    static let sdkSeconds: Int64 = 20
    /// The SDK writers' pause between transactions (random, up to this).
    static let sdkPauseMilliseconds = 20

    // MARK: helpers

    /// A small database (a `base` tree of 200 entries) so each replacement is quick.
    static func createDatabase(_ db: String) throws {
        let lines = (0..<200).map { "\"base\"\t\"b\($0)\"\t\"base value \($0)\"" }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: db + ".input-base"))
        let run = try FirnRun.run(["load", db, "--input", db + ".input-base", "--no-progress"])
        try #require(run.status == 0, "creating \(db): \(run.stderr)")
    }

    /// One more load once everything stopped: it must succeed, and it is the
    /// writer that refreshes the version an import left published in the
    /// lock file (stale until a writer opens the database again, issue 7 §4,
    /// which would make the read-only checks below exit 75).
    static func loadAfterRace(_ db: String) throws {
        let input = db + ".input-after-race"
        try Data((entryLine("after-race") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let last = try FirnRun.run(["load", db, "--input", input, "--batch", "1", "--no-progress"])
        #expect(last.status == 0, "load after the race: exit \(last.status): \(last.stderr)")
    }

    static func entryLine(_ key: String) -> String {
        "\"race\"\t\"\(key)\"\t\"value \(key)\""
    }

    /// `firn load FILE --batch 1` in a loop until `deadline`, each run with
    /// `entriesPerLoad` new keys; exit 0 records them as acknowledged.
    static func loadLoop(writer: Int, db: String, until deadline: ContinuousClock.Instant, record: RaceRecord) {
        var run = 0
        while ContinuousClock.now < deadline {
            let keys = (0..<entriesPerLoad).map { "w\(writer)-\(run)-\($0)" }
            run += 1
            // The entries go through --input, a file: on stdin, a load refused
            // before reading would kill the test with SIGPIPE.
            let input = db + ".input-w\(writer)"
            let result: FirnRun
            do {
                try Data((keys.map(entryLine).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
                result = try FirnRun.run(["load", db, "--input", input, "--batch", "1", "--json", "--no-progress"],
                                         timeout: 120)
            } catch {
                record.fail("load \(keys): \(error)")
                return
            }
            switch (result.status, result.crashed || result.timedOut) {
            case (0, false):
                guard let report = try? result.json(LoadJSON.self), report.entries == UInt64(entriesPerLoad) else {
                    record.fail("load \(keys): exit 0 with report \(result.stdout)")
                    continue
                }
                record.acknowledge(AcknowledgedLoad(keys: keys, version: report.version))
            case (75, false):
                record.refuseLoad()
            default:
                record.fail("load \(keys): exit \(result.status)\(result.crashed ? " (crashed)" : "")"
                            + "\(result.timedOut ? " (timed out)" : ""): \(result.stderr)", code: result.status)
            }
        }
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
                record.fail("\(what): exit \(result.status)\(result.crashed ? " (crashed)" : "")"
                            + "\(result.timedOut ? " (timed out)" : ""): \(result.stderr)", code: result.status)
            }
        } catch {
            record.fail("\(what): \(error)")
        }
        return false
    }

    /// The keys of tree "race" in `db`, through `firn dump --entries`.
    static func keysInFile(_ db: String) throws -> Set<String> {
        let dump = try FirnRun.run(["dump", db, "--entries", "--tree", "race", "--no-progress"], timeout: 120)
        try #require(dump.status == 0, "dump \(db): exit \(dump.status): \(dump.stderr)")
        var keys = Set<String>()
        for line in dump.stdout.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].count >= 2 else { continue }
            keys.insert(String(fields[1].dropFirst().dropLast()))
        }
        return keys
    }

    /// A replaced file (kept by its hard link; nobody has it open any more
    /// and it has no lock file): its "race" keys and its commit times.
    static func readReplacedFile(_ path: String) throws -> (keys: [String], commitTimes: [UInt64: UInt64],
                                                            newestVersion: UInt64, newestCommitTime: UInt64) {
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        let store = try Store.open(path, options: options)
        defer { store.close() }
        let snapshot = try store.snapshot(label: "replacement race check")
        defer { snapshot.close() }
        var keys: [String] = []
        if let tree = try snapshot.tree("race") {
            let cursor = tree.cursor()
            try cursor.first()
            while cursor.isValid {
                keys.append(String(decoding: try cursor.key ?? [], as: UTF8.self))
                try cursor.next()
            }
        }
        var times: [UInt64: UInt64] = [:]
        for entry in try snapshot.history() { times[entry.version] = entry.timestampNanoseconds }
        times[snapshot.info.version] = snapshot.info.timestampNanoseconds
        // `firn load` commits small loads as frames of the commit log: their
        // times are the frames' (those of the current checkpoint's log;
        // frames of earlier logs are in no record, see the caller).
        if let record = snapshot.info.commitRecord, let log = try store.inspectLog(of: record) {
            times.merge(log.commitTimes) { _, frame in frame }
        }
        let newest = try #require(times[snapshot.version], "no commit time for v\(snapshot.version) of \(path)")
        return (keys, times, snapshot.version, newest)
    }

    struct LoadJSON: Decodable {
        let entries: UInt64
        let version: UInt64
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
