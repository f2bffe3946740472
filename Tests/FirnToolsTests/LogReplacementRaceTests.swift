import Foundation
import Testing
import FirnTools
@testable import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// `ReplacementRaceTests` with writers that commit through the commit log
/// (FORMAT.md 8.2, `StoreOptions.commitLogPages`): `firn compact` in place
/// and `firn import --force` replace the file at its path while
/// `firn-testkit commit-check --log-pages 4` children open it, commit a few
/// durable and deferred frames, seal their group with `sync()` (or close it
/// unsynced), and read back what they were told is durable while they still
/// have the file open. A four-page region fills every few sessions, and one
/// commit in eight carries a value over an eighth of it, so checkpoints (new
/// regions, old ones retired) happen throughout the race, beside frames,
/// seals and groups a first opener drops. Every file replaced here has a log
/// whose current version is usually a frame: compaction must pack the
/// merged trees, and the next writer must start over on the new file
/// (a record without a region, or an older one), never chain a frame to
/// what it knew of the old file.
///
/// Rules, as in `ReplacementRaceTests`: every process exits 0 or 75; no
/// writer reads back less than it was acknowledged (`missing`: a commit into
/// a file no longer at the path); compaction keeps every acknowledged key;
/// an import drops keys only of a file it replaced, and no replaced file
/// holds a commit record or a frame written after its rename; the final
/// file verifies clean (`firn verify`), and `firn dump` shows what the
/// writers acknowledged.
///
/// Runtime on the shared 2-core machine: about 13 s for each race (12 s of
/// racing, then the checks), 1.5 s for both paused cases, 0.4 s for the
/// tools on a frame's version; the suite about 28 s. Run alone, a race
/// acknowledges 900–1,100 keys (about two thirds by frames, one third by
/// checkpoints), with 26–42 compactions or 70–110 imports succeeding; beside
/// other suites on 2 cores, as few as a third of that, hence the low floors
/// the tests require (5 replacements).
///
/// What these tests catch (each mutation made in the source, then reverted):
/// - `firn dump --entries` walking each tree from its catalog root (as it
///   did): the dump test, and the races whenever the final version is a
///   frame (keys acknowledged by the last frames missing from the dump).
/// - The packed image writer ignoring the frames, with the catalog counts
///   taken from what it loaded (so the copy still verifies): the compact
///   race (acknowledged keys lost), the dump test, `CommitLogReplacementTests`.
///   Ignoring them with the log's counts: every compaction and import
///   fails verification (65).
/// - `import --force` without exclusivity (and the new file not recorded):
///   the import race (hundreds of `missing` read-backs; replaced files
///   holding frames and records written after their rename).
/// - The opener's check that its descriptor is the file at the path (and
///   the lock file's), with the writer's check that the lock file still
///   records its file also removed: the paused cases (`missing`); the
///   random races did not hit that window in their 12 s (as in
///   `ReplacementRaceTests`, whose SDK race did not either). With only the
///   opener's check removed, the writer's check refuses (busy).
@Suite(.serialized) struct LogReplacementRaceTests {
    /// The writers' region: small, so checkpoints come every few sessions.
    static let regionPages = 4
    /// `commit-check` children per race.
    static let writers = 3
    /// Their pause between sessions (random, up to this): without gaps the
    /// file is seldom free to replace (with 20 ms, 2 compactions in 12 s;
    /// with 100 ms, beside the heaviest suites on 2 cores, one import
    /// attempt in 12 s, refused).
    static let pauseMilliseconds = 300
    /// A race must make this many replacements (and acknowledge
    /// `minimumAcknowledged` keys, by at least `minimumFrames` frames and
    /// `minimumCheckpoints` checkpoints) to count as run. Beside the
    /// heaviest suites on 2 cores a race has made only one replacement (each
    /// `firn` process then takes seconds to start and finish): it is run
    /// again, every check made on each run, up to `raceAttempts` times.
    static let minimumReplacements = 3
    static let minimumAcknowledged = 100
    static let minimumFrames = 20
    static let minimumCheckpoints = 10
    static let raceAttempts = 3
    static let compactSeconds: Int64 = 12
    static let importSeconds: Int64 = 12

    // MARK: compact in place

    /// Log writers against two `firn compact FILE --lock-timeout 0` loops.
    /// Compaction keeps every entry of the version it packs, which is at
    /// least the last durable one: every acknowledged key must be in the
    /// final file.
    @Test func compactInPlaceNeverLosesAnAcknowledgedLogCommit() throws {
        var shortfall: String?
        for _ in 0..<Self.raceAttempts {
            shortfall = try Self.compactRace()
            if shortfall == nil { break }
        }
        #expect(shortfall == nil, "the last of \(Self.raceAttempts) races did not really run: \(shortfall ?? "")")
    }

    /// What a race fell short of to count as run (nil: nothing).
    static func shortfall(replacements: Int, of what: String, output: WriterOutput) -> String? {
        var short: [String] = []
        if replacements < minimumReplacements { short.append("\(replacements) \(what)") }
        if output.acknowledged.count < minimumAcknowledged { short.append("\(output.acknowledged.count) acknowledged keys") }
        if output.frames < minimumFrames || output.checkpoints < minimumCheckpoints { short.append(output.summary) }
        return short.isEmpty ? nil : short.joined(separator: "; ")
    }

    /// One race, every check made; what it fell short of to count as run
    /// (how many replacements, acknowledged keys, frames and checkpoints), or nil.
    static func compactRace() throws -> String? {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createLogDatabase(db)
        let record = RaceRecord()
        let children = Box<[WriterRun]>([])
        let deadline = ContinuousClock.now + .seconds(Self.compactSeconds)
        let started = ContinuousClock.now
        runConcurrently(Self.writerProcesses(db: db, seconds: Self.compactSeconds, record: record, into: children)
                        + (0..<Race.compactors).map { _ in Race.loop("compact", db, until: deadline, record: record) })
        let elapsed = ContinuousClock.now - started

        let output = WriterOutput(children.value)
        let final = try Self.finalKeys(db)
        let lost = output.acknowledged.filter { !final.contains($0.key) }
        print("LogReplacementRaceTests.compact: \(elapsed): \(output.summary); \(lost.count) lost; "
              + "\(record.replacements) compactions, \(record.refusedReplacements) refused (75); "
              + "\(record.failures.count) failed processes \(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        #expect(output.missing.isEmpty, "\(output.missing.count) commits went into a replaced file: \(output.missing.prefix(5))")
        #expect(output.errors.isEmpty, "\(output.errors.count) errors: \(output.errors.prefix(5))")
        #expect(lost.isEmpty, "acknowledged keys not in the final file: \(lost.prefix(5))")
        try Race.expectVerifies(db)
        // Whether the race was really run, through frames and checkpoints
        // alike, the caller checks (and runs it again if not).
        return Self.shortfall(replacements: record.replacements, of: "compactions", output: output)
    }

    // MARK: import --force

    /// Log writers against an `import --force BASE -o FILE` loop, BASE an
    /// export of the database taken when its current version was a frame
    /// (so the export merged the log too). As in `ReplacementRaceTests`,
    /// the file each import replaces is kept by a hard link (`gen-K`) and
    /// an inotify watch timestamps the rename; afterwards no `gen-K` may
    /// hold a commit record or a frame (any frame its region holds, synced
    /// or not, acknowledged or not) whose time is after its rename, and
    /// every acknowledged key is in the final file or in a replaced one.
    @Test func importForceNeverLetsALogWriterCommitIntoTheReplacedFile() throws {
        var shortfall: String?
        for _ in 0..<Self.raceAttempts {
            shortfall = try Self.importRace()
            if shortfall == nil { break }
        }
        #expect(shortfall == nil, "the last of \(Self.raceAttempts) races did not really run: \(shortfall ?? "")")
    }

    /// One race, every check made; what it fell short of to count as run
    /// (how many replacements, acknowledged keys, frames and checkpoints;
    /// keys both in the final file and dropped by an import), or nil.
    static func importRace() throws -> String? {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createLogDatabase(db)
        let base = try Race.exportBase(db, in: dir)
        let watcher = try RenameWatcher(directory: dir.path, name: "race.firn")
        defer { watcher.stop() }
        let record = RaceRecord()
        let children = Box<[WriterRun]>([])
        let replaced = Box<[(path: String, renamedAt: UInt64)]>([])
        // The imports stop a little before the writers, so that some
        // acknowledged keys end up in the final file too.
        let importDeadline = ContinuousClock.now + .seconds(Self.importSeconds - 2)
        let started = ContinuousClock.now
        runConcurrently(Self.writerProcesses(db: db, seconds: Self.importSeconds, record: record, into: children)
                        + [Race.importGenerations(db, base: base, in: dir, watcher: watcher, until: importDeadline,
                                                  record: record, into: replaced)])
        let elapsed = ContinuousClock.now - started
        watcher.stop()

        let output = WriterOutput(children.value)
        let final = try Self.finalKeys(db)
        let files = replaced.value
        var writtenAfterRename: [String] = []
        var inReplacedFile = Set<String>()
        for file in files {
            let contents = try Self.inspectReplacedFile(file.path)
            inReplacedFile.formUnion(contents.keys)
            if contents.newestTime > file.renamedAt {
                writtenAfterRename.append(
                    "\((file.path as NSString).lastPathComponent): \(contents.newestWhat) written "
                    + "\(Double(contents.newestTime - file.renamedAt) / 1e6) ms after the rename that replaced it")
            }
        }
        let survived = output.acknowledged.filter { final.contains($0.key) }.count
        let dropped = output.acknowledged.filter { !final.contains($0.key) && inReplacedFile.contains($0.key) }.count
        let lost = output.acknowledged.filter { !final.contains($0.key) && !inReplacedFile.contains($0.key) }
        print("LogReplacementRaceTests.import: \(elapsed): \(output.summary): \(survived) in the final file, "
              + "\(dropped) in a file an import replaced, \(lost.count) lost; \(record.replacements) imports, "
              + "\(record.refusedReplacements) refused (75); \(writtenAfterRename.count) replaced files written after "
              + "their rename; \(record.failures.count) failed processes \(record.failureCodes)")
        #expect(record.failures.isEmpty, "processes failed: \(record.failures.prefix(5))")
        #expect(output.missing.isEmpty, "\(output.missing.count) commits went into a replaced file: \(output.missing.prefix(5))")
        #expect(output.errors.isEmpty, "\(output.errors.count) errors: \(output.errors.prefix(5))")
        #expect(writtenAfterRename.isEmpty, "commits into replaced files: \(writtenAfterRename.prefix(5))")
        #expect(lost.isEmpty, "acknowledged keys lost: \(lost.prefix(5))")
        try Race.expectVerifies(db)
        // Whether the race was really run (through frames and checkpoints,
        // with keys in the final file and keys an import dropped), the
        // caller checks, and runs it again if not.
        var short = Self.shortfall(replacements: record.replacements, of: "imports", output: output).map { [$0] } ?? []
        if survived == 0 { short.append("no acknowledged key in the final file") }
        if record.replacements >= Self.minimumReplacements && dropped == 0 { short.append("no acknowledged key dropped by an import") }
        return short.isEmpty ? nil : short.joined(separator: "; ")
    }

    // MARK: paused just before the rename

    /// `ReplacementRaceTests.storeOpenedJustBeforeTheRenameNeverCommitsIntoTheReplacedFile`
    /// for a log writer: the old file's current version is a frame of an
    /// open region when `firn-testkit open-paused-commit --log-pages`
    /// opens it and stops; the file is replaced meanwhile; then the writer's
    /// session commits and reads back. Each line must be `ack` (in the file
    /// at the path), `unsynced` or `busy`: never `missing`.
    @Test(arguments: ["compact", "import --force"])
    func logWriterOpenedJustBeforeTheRenameNeverCommitsIntoTheReplacedFile(_ replacement: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("race.firn")
        try Self.createLogDatabase(db)
        let base = try Race.exportBase(db, in: dir)
        // One more session, so the file replaced has frames past the export.
        let more = try FirnRun.run(["commit-check", db, "more", "0.2", "0", "--log-pages", "\(Self.regionPages)"],
                                   timeout: 60, executable: BuiltProducts.testkit)
        try #require(more.status == 0 && !more.stdout.contains("missing") && !more.stdout.contains("error"), "\(more.stdout)")
        let (child, replaced) = try Race.replacedWhilePaused(db, base: base, in: dir, by: replacement,
                                                             options: ["--log-pages", "\(Self.regionPages)"])
        var lines: [String] = []
        while let line = child.readLine(timeout: .seconds(60)) { lines.append(line) }
        print("LogReplacementRaceTests.paused (\(replacement)): replacement exit \(replaced.status); the store: \(lines)")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("ack ") || $0.hasPrefix("unsynced ") || $0.hasPrefix("busy ") },
                "after \(replacement) (exit \(replaced.status)) the store opened before it said: \(lines)")
        #expect(child.waitForExit(timeout: .seconds(30)) == 0)
        try Race.expectVerifies(db)
    }

    // MARK: the tools on a version between checkpoints

    /// What the races rely on, without a race: a file whose current version
    /// is a frame (a checkpoint, then durable and deferred frames sealed by
    /// `sync()`: a put, a delete of a checkpointed key, a new tree) is shown
    /// whole by `firn dump`, exported and imported whole, and compacted in
    /// place whole, at its version; each result verifies.
    @Test func dumpExportImportAndCompactOfAFileWhoseCurrentVersionIsAFrame() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("log.firn")
        var options = StoreOptions()
        options.commitLogPages = 16
        let store = try Store.open(db, options: options)
        try store.write { txn in
            for n in 0..<20 { try txn.tree("sdk")?.put(Array("c\(n)".utf8), Array("checkpointed".utf8)) }
        }
        let checkpoint = try store.currentVersion
        for (n, durability) in [CommitDurability.durable, .deferred, .deferred].enumerated() {
            let txn = try store.beginWriteBlocking()
            try txn.tree("sdk")?.put(Array("f\(n)".utf8), Array("framed".utf8))
            try txn.tree("sdk")?.delete(Array("c\(n)".utf8))
            try txn.tree("other\(n)")?.put([1], [2])
            try txn.commit(durability: durability)
        }
        let version = try store.sync()
        #expect(version == checkpoint + 3)
        #expect(try store.readSlots().slots.allSatisfy { (try? $0.get())?.version ?? 0 <= checkpoint }, "frames only")
        store.close()
        let expected = Set((3..<20).map { "c\($0)" } + (0..<3).map { "f\($0)" })

        #expect(try Self.keysInFile(db) == expected, "firn dump")
        let export = try FirnRun.run(["export", db, "-o", dir.file("log.lz4"), "--no-progress"])
        try #require(export.status == 0, "export: \(export.stderr)")
        let imported = dir.file("imported.firn")
        let importRun = try FirnRun.run(["import", dir.file("log.lz4"), "-o", imported, "--no-progress"])
        try #require(importRun.status == 0, "import: \(importRun.stderr)")
        #expect(try Self.keysInFile(imported) == expected, "imported")
        #expect(try Self.keysThroughStore(imported) == expected, "imported")
        let compact = try FirnRun.run(["compact", db, "--json", "--no-progress"])
        try #require(compact.status == 0, "compact: \(compact.stderr)")
        #expect(compact.stdout.contains("\"version\":\(version)") || compact.stdout.contains("\"version\" : \(version)"),
                "compacted at the frame's version: \(compact.stdout)")
        #expect(try Self.keysInFile(db) == expected, "compacted")
        #expect(try Self.keysThroughStore(db) == expected, "compacted")
        for file in [db, imported] {
            let verify = try FirnRun.run(["verify", file, "--no-progress"], timeout: 120)
            #expect(verify.status == 0, "verify \(file): \(verify.stdout.suffix(500)) \(verify.stderr)")
            let trees = try FirnRun.run(["dump", file, "--entries", "--no-progress"])
            #expect((0..<3).allSatisfy { trees.stdout.contains("\"other\($0)\"") }, "trees made in frames: \(trees.stdout)")
        }
    }

    // MARK: helpers

    /// `Race.createDatabase`, then a moment of log sessions,
    /// so the file has a region whose frames are past its checkpoint.
    static func createLogDatabase(_ db: String) throws {
        try Race.createDatabase(db)
        let seed = try FirnRun.run(["commit-check", db, "seed", "0.3", "0", "--log-pages", "\(regionPages)"],
                                   timeout: 60, executable: BuiltProducts.testkit)
        try #require(seed.status == 0 && seed.stdout.contains("ack ") && !seed.stdout.contains("missing")
                     && !seed.stdout.contains("error"), "seeding the log: \(seed.stdout) \(seed.stderr)")
    }

    /// One `commit-check --log-pages` child per writer, each for `seconds`.
    static func writerProcesses(db: String, seconds: Int64, record: RaceRecord,
                                into children: Box<[WriterRun]>) -> [@Sendable () -> Void] {
        Race.commitCheckers(db, count: writers, seconds: seconds, pauseMilliseconds: pauseMilliseconds,
                            options: ["--log-pages", "\(regionPages)"], record: record, into: children)
    }

    /// The keys of tree "sdk" in the final file, read through a store; and
    /// `firn dump --entries` must show the same. Read before any other
    /// writer: its current version is usually a frame.
    static func finalKeys(_ db: String) throws -> Set<String> {
        let read = try keysThroughStore(db)
        let dumped = try keysInFile(db)
        let left = read.subtracting(dumped), extra = dumped.subtracting(read)
        #expect(left.isEmpty && extra.isEmpty, "`firn dump` of the final file (its current version a frame?) leaves out \(left.count) keys, e.g. \(left.sorted().prefix(5)), and shows \(extra.count) keys the version does not hold")
        return read
    }

    /// The keys of tree "sdk" as `firn dump --entries` shows them.
    static func keysInFile(_ db: String) throws -> Set<String> { try Race.keysInFile(db, tree: "sdk") }

    /// The keys of tree "sdk" in the current version, read through a store
    /// (a cursor, which merges the log's frames over their checkpoint).
    static func keysThroughStore(_ db: String) throws -> Set<String> {
        let store = try Store.open(db, options: .readOnlyExisting)
        defer { store.close() }
        let snapshot = try store.snapshot(label: "log replacement race check")
        defer { snapshot.close() }
        return Set(try Race.keys(of: snapshot, tree: "sdk"))
    }

    /// A replaced file (kept by its hard link; nobody has it open and it has
    /// no lock file): the "sdk" keys of its durable version, and the newest
    /// time anything was committed into it — either slot's record, and
    /// every frame in the regions they name, whether or not a sync followed.
    static func inspectReplacedFile(_ path: String) throws -> (keys: Set<String>, newestTime: UInt64, newestWhat: String) {
        let store = try Store.open(path, options: .readOnlyExisting)
        defer { store.close() }
        var newest: (time: UInt64, what: String) = (0, "nothing")
        for case let .success(record) in try store.readSlots().slots {
            if record.timestampNanoseconds > newest.time { newest = (record.timestampNanoseconds, "the record of v\(record.version)") }
            for frame in try store.log.scan(of: record)?.frames ?? [] where frame.header.timestampNanoseconds > newest.time {
                newest = (frame.header.timestampNanoseconds, "a frame of v\(frame.header.version) (epoch \(record.version))")
            }
        }
        let snapshot = try store.snapshot(label: "log replacement race check")
        defer { snapshot.close() }
        return (Set(try Race.keys(of: snapshot, tree: "sdk")), newest.time, newest.what)
    }
}

/// What the `commit-check --log-pages` children said, parsed.
struct WriterOutput {
    struct Acknowledged {
        let key: String
        let version: UInt64
        let checkpoint: Bool
    }
    var acknowledged: [Acknowledged] = []
    var unsynced = 0
    var busy = 0
    /// The first few `busy` lines, for the report.
    var busyExamples: [String] = []
    var missing: [String] = []
    var errors: [String] = []

    init(_ runs: [WriterRun]) {
        for child in runs {
            let run = child.run
            if run.status != 0 || run.crashed || run.timedOut {
                errors.append("\(child.prefix): \(run.exit): \(run.stderr)")
            }
            for line in run.stdout.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if line.hasPrefix("ack "), fields.count == 4, let version = UInt64(fields[2]),
                   fields[3] == "frame" || fields[3] == "checkpoint" {
                    acknowledged.append(Acknowledged(key: String(fields[1]), version: version, checkpoint: fields[3] == "checkpoint"))
                } else if line.hasPrefix("unsynced ") { unsynced += 1 }
                else if line.hasPrefix("busy ") {
                    busy += 1
                    if busyExamples.count < 2 { busyExamples.append(String(line)) }
                }
                else if line.hasPrefix("missing ") { missing.append("\(child.prefix): \(line)") }
                else if line.hasPrefix("done ") { continue }
                else { errors.append("\(child.prefix): \(line)") }
            }
        }
    }

    var frames: Int { acknowledged.count { !$0.checkpoint } }
    var checkpoints: Int { acknowledged.count { $0.checkpoint } }

    var summary: String {
        "\(acknowledged.count) keys acknowledged and read back (\(frames) by frames, \(checkpoints) by checkpoints), "
            + "\(unsynced) left unsynced, \(missing.count) committed into a replaced file, \(errors.count) errors, \(busy) busy \(busyExamples)"
    }
}
