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
        try Race.createDatabase(db)
        let record = RaceRecord()
        let deadline = ContinuousClock.now + .seconds(Self.compactSeconds)
        let started = ContinuousClock.now
        runConcurrently(Self.loaders(db, until: deadline, record: record)
                        + (0..<Race.compactors).map { _ in Race.loop("compact", db, until: deadline, record: record) })
        let elapsed = ContinuousClock.now - started

        let present = try Race.keysInFile(db, tree: "race")
        let loads = record.acknowledged
        let acknowledgedKeys = loads.flatMap(\.keys)
        let missing = loads.filter { load in !load.keys.allSatisfy(present.contains) }
        print("ReplacementRaceTests.compact: \(elapsed): \(loads.count) acknowledged loads, "
              + "\(acknowledgedKeys.count) acknowledged entries checked, \(missing.count) loads lost entries "
              + "(\(missing.flatMap(\.keys).filter { !present.contains($0) }.count) entries); "
              + "\(record.refusedLoads) loads refused (75); \(record.replacements) compactions, "
              + "\(record.refusedReplacements) refused (75); \(record.failures.count) failed processes "
              + "\(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        let examples = missing.prefix(5).map { "\($0.keys.filter { !present.contains($0) }) of \($0.keys) (v\($0.version))" }
        #expect(missing.isEmpty, "\(missing.count) of \(loads.count) acknowledged loads lost entries, e.g. \(examples)")
        try Race.expectVerifies(db)
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
        try Race.createDatabase(db)
        let base = try Race.exportBase(db, in: dir)
        let watcher = try RenameWatcher(directory: dir.path, name: "race.firn")
        defer { watcher.stop() }
        let record = RaceRecord()
        let replaced = Box<[(path: String, renamedAt: UInt64)]>([])
        let deadline = ContinuousClock.now + .seconds(Self.importSeconds)
        // The imports stop a little before the writers, so that some loads
        // end up in the final file too.
        let importDeadline = deadline - .seconds(2)
        let started = ContinuousClock.now
        runConcurrently(Self.loaders(db, until: deadline, record: record)
                        + [Race.importGenerations(db, base: base, in: dir, watcher: watcher, until: importDeadline,
                                                  record: record, into: replaced)])
        let elapsed = ContinuousClock.now - started
        watcher.stop()

        try Self.loadAfterRace(db)
        let final = try Race.keysInFile(db, tree: "race")
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
        try Race.expectVerifies(db)
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
        try Race.createDatabase(db)
        let base = try Race.exportBase(db, in: dir)
        let record = RaceRecord()
        let children = Box<[WriterRun]>([])
        let seconds = Self.sdkSeconds
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        runConcurrently(Race.commitCheckers(db, count: 3, seconds: seconds, pauseMilliseconds: Self.sdkPauseMilliseconds,
                                            record: record, into: children)
                        + [Race.loop("compact", db, until: deadline, record: record),
                           Race.loop("import --force", db, base: base, until: deadline, record: record)])
        let elapsed = ContinuousClock.now - started

        try Self.loadAfterRace(db)
        var acknowledged = 0, busy = 0
        var missing: [String] = [], errors: [String] = []
        for child in children.value {
            let (prefix, run) = (child.prefix, child.run)
            if run.status != 0 || run.crashed || run.timedOut {
                errors.append("\(prefix): \(run.exit): \(run.stderr)")
            }
            for line in run.stdout.split(separator: "\n") {
                if line.hasPrefix("ack ") { acknowledged += 1 }
                else if line.hasPrefix("busy ") { busy += 1 }
                else if line.hasPrefix("missing ") { missing.append("\(prefix): \(line)") }
                else if line.hasPrefix("error ") { errors.append("\(prefix): \(line)") }
                else if !line.hasPrefix("done ") { errors.append("\(prefix): unexpected output: \(line)") }
            }
        }
        print("ReplacementRaceTests.sdk: \(elapsed): \(acknowledged) commits acknowledged and read back, "
              + "\(missing.count) committed into a replaced file, \(errors.count) errors, \(busy) busy; "
              + "\(record.replacements) replacements (compact + import), \(record.refusedReplacements) refused (75); "
              + "\(record.failures.count) failed processes \(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        #expect(missing.isEmpty, "\(missing.count) commits went into a replaced file: \(missing.prefix(5))")
        #expect(errors.isEmpty, "\(errors.count) errors: \(errors.prefix(5))")
        try Race.expectVerifies(db)
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
        try Race.createDatabase(db)
        let base = try Race.exportBase(db, in: dir)
        let (child, replaced) = try Race.replacedWhilePaused(db, base: base, in: dir, by: replacement)
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

    /// A `loadLoop` for each of the `writers`.
    static func loaders(_ db: String, until deadline: ContinuousClock.Instant, record: RaceRecord) -> [@Sendable () -> Void] {
        (0..<writers).map { writer in { loadLoop(writer: writer, db: db, until: deadline, record: record) } }
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
                record.fail("load \(keys): \(result.exit): \(result.stderr)", code: result.status)
            }
        }
    }

    /// A replaced file (kept by its hard link; nobody has it open any more
    /// and it has no lock file): its "race" keys and its commit times.
    static func readReplacedFile(_ path: String) throws -> (keys: [String], commitTimes: [UInt64: UInt64],
                                                            newestVersion: UInt64, newestCommitTime: UInt64) {
        let store = try Store.open(path, options: .readOnlyExisting)
        defer { store.close() }
        let snapshot = try store.snapshot(label: "replacement race check")
        defer { snapshot.close() }
        let keys = try Race.keys(of: snapshot, tree: "race")
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
