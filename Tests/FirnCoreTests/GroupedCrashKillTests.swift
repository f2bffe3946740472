import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Process kills during grouped commits (FORMAT.md 8.1). Child processes
/// (`firn-testkit group-loop`) commit `.deferred` in groups, call `sync()`
/// every few commits (or leave that to another process, `sync-loop`), and
/// print every commit and every acknowledged durability point before going
/// on; the test SIGKILLs them at random moments and reopens the file.
///
/// A reopen after every process is gone is a first opener: it rejects a
/// pending group's unsealed record (FORMAT.md 2.1), so the file opens at
/// the last durability point that wrote its sealed record — never below the
/// last acknowledged one, never past the last commit started. The contents
/// are a function of the version (`GroupModel`, keys name the version that
/// wrote them), so every reopened version is checked whole, and verified.
///
/// A kill loses no write (the page cache survives it), so these tests do not
/// see a missing fsync (`GroupedCommitTests` and `GroupedPowerLossTests` do);
/// they catch a durability point acknowledged before its sealed record is
/// written, a group member that overwrote a page of the durable base (the
/// reopen lands on the base and finds it damaged), a dead writer's lock or
/// pin that wedges the next process, and a surviving process that builds on
/// the wrong version after a writer died.
@Suite(.serialized) struct GroupedCrashKillTests {
    /// `FIRN_CRASH_SEED` replays a failing run.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["FIRN_CRASH_SEED"].flatMap { UInt64($0) } ?? 0x6B_11_19_20
    }

    /// One line of a child: "c V", "D V" or "d V".
    enum Line: Equatable, TranscriptLine {
        case deferred(UInt64), durableCommit(UInt64), synced(UInt64)

        init?(_ text: String) {
            let words = text.split(separator: " ")
            guard words.count == 2, let version = UInt64(words[1]) else { return nil }
            switch words[0] {
            case "c": self = .deferred(version)
            case "D": self = .durableCommit(version)
            case "d": self = .synced(version)
            default: return nil
            }
        }

        var committed: UInt64? {
            switch self {
            case let .deferred(v), let .durableCommit(v): return v
            case .synced: return nil
            }
        }
    }

    typealias Transcript = ChildTranscript<Line>


    /// Reads whatever `child` prints until `deadline` (or until `enough`
    /// says so) into `transcript`.
    static func collect(_ child: ChildProcess, into transcript: inout Transcript, until deadline: ContinuousClock.Instant,
                        enough: (Transcript) -> Bool = { _ in false }) {
        while !enough(transcript) {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return }
            guard let line = child.readLine(timeout: remaining) else { return }
            transcript.add(line)
        }
    }

    /// SIGKILLs `child`, waits for it, and reads what it printed before.
    static func kill(_ child: ChildProcess, into transcript: inout Transcript, _ label: String) -> Bool {
        child.kill(SIGKILL)
        let status = child.waitForExit(timeout: .seconds(10))
        #expect(status == SIGKILL, "\(label): the child ended with \(String(describing: status)) before the kill: \(child.errorOutput())")
        while let line = child.readLine(timeout: .milliseconds(200)) { transcript.add(line) }
        return status == SIGKILL
    }

    /// Reopens `path` (nobody else has it open: a first opener) and checks
    /// it holds a version in `allowed`, whole and verified. The version, or
    /// nil after recording an issue.
    static func reopenAndCheck(_ path: String, allowed: ClosedRange<UInt64>, _ label: String) throws -> UInt64? {
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        let version = try store.currentVersion
        let pins = store.pins()
        #expect(!pins.contains { !$0.stale }, "\(label): a live pin after the kill: \(pins)")
        #expect(try store.durableVersion == version, "\(label): a first opener's durable version is not the version it opened")
        guard allowed.contains(version) else {
            let expected = "v\(allowed.lowerBound)…v\(allowed.upperBound) (the last acknowledged durability point … the last commit started)"
            Issue.record("\(label): opened v\(version), expected \(expected)")
            return nil
        }
        let problems = try GroupModel.problems(store, version: version)
        guard problems.isEmpty else {
            Issue.record("\(label): v\(version): \(problems.prefix(6))")
            return nil
        }
        return version
    }

    /// A child commits deferred with `sync()` every 1–8 commits (and now and
    /// then a durable commit) and is killed after a random time (10–250 ms)
    /// or a random number of lines; the next child continues on the same
    /// file. Rounds until 70 or about 12 s; on a loaded machine (children
    /// then start slowly) on past 12 s until the checks at the end have
    /// their minimum rounds and a kill inside a pending group, for at most
    /// 120 s. Runtime: about 12 s.
    @Test func aKilledGroupWriterKeepsEveryAcknowledgedDurabilityPoint() throws {
        let dir = try TemporaryDirectory(prefix: "firn-group-kill")
        let path = dir.file("groups.firn")
        var current = try GroupModel.createStore(at: path)
        var rng = SeededGenerator(seed: Self.seed)
        let started = ContinuousClock.now
        var kills = 0, lines = 0, atAcknowledged = 0, pastAcknowledged = 0, groupsLost = 0
        while kills < 70 && ContinuousClock.now - started < .seconds(12)
                || (kills < 20 || groupsLost == 0) && ContinuousClock.now - started < .seconds(120) {
            let label = "round \(kills)"
            let syncEvery = 1 + Int(rng.below(8))
            guard let child = try ChildProcess.readyTestkit(["group-loop", path, "\(rng.next())", "\(syncEvery)"], label) else { return }
            var transcript = Transcript()
            let byCount = rng.chance(1, in: 4)
            let wanted = 1 + Int(rng.below(30))
            let deadline = ContinuousClock.now + (byCount ? .seconds(20) : .milliseconds(10 + Int(rng.below(241))))
            Self.collect(child, into: &transcript, until: deadline) { byCount && $0.lines.count >= wanted }
            guard Self.kill(child, into: &transcript, label) else { return }
            kills += 1
            lines += transcript.lines.count
            let problems = transcript.problems(startingAfter: current)
            #expect(problems.isEmpty, "\(label): \(problems.prefix(5))")
            let acknowledged = max(current, transcript.durable)
            let lastStarted = (transcript.commits.last ?? current) + 1
            guard let found = try Self.reopenAndCheck(path, allowed: acknowledged...lastStarted,
                                                      "\(label) (sync every \(syncEvery))") else { return }
            if found == acknowledged { atAcknowledged += 1 } else { pastAcknowledged += 1 }
            if let last = transcript.commits.last, found < last { groupsLost += 1 }
            current = found
        }
        let elapsed = ContinuousClock.now - started
        print("GroupedCrashKillTests: \(kills) kills, \(lines) lines (commits and durability points), final v\(current); "
              + "reopened at the last acknowledged durability point \(atAcknowledged)×, past it \(pastAcknowledged)× "
              + "(killed inside a sync or durable commit after its sealed record); \(groupsLost) pending groups lost; "
              + "seed \(Self.seed); \(elapsed)")
        #expect(kills >= 20)
        #expect(groupsLost > 0, "no kill fell inside a pending group")
    }

    /// One process commits deferred and never makes a durability point;
    /// another only calls `Store.sync()`, sealing the first one's groups.
    /// The writer is killed at a random moment; the syncer makes one more
    /// durability point after the writer's death (it covers whatever the
    /// dead writer left) and is killed in turn. The reopen must hold every
    /// group the syncer acknowledged. Rounds until 25 or about 9 s (on a
    /// loaded machine on past that until the checks at the end have their
    /// minimum rounds and a group sealed by the syncer, for at most 120 s).
    /// Runtime: about 9 s.
    @Test func aGroupSealedByAnotherProcessSurvivesItsWriterBeingKilled() throws {
        let dir = try TemporaryDirectory(prefix: "firn-group-kill-cross")
        let path = dir.file("cross.firn")
        var current = try GroupModel.createStore(at: path)
        var rng = SeededGenerator(seed: Self.seed ^ 0xC505)
        let started = ContinuousClock.now
        var rounds = 0, sealedByOther = 0, syncsAfterDeath = 0, pastAcknowledged = 0
        while rounds < 25 && ContinuousClock.now - started < .seconds(9)
                || (rounds < 8 || sealedByOther == 0) && ContinuousClock.now - started < .seconds(120) {
            let label = "round \(rounds)"
            guard let writer = try ChildProcess.readyTestkit(["group-loop", path, "\(rng.next())", "0"], label),
                  let syncer = try ChildProcess.readyTestkit(["sync-loop", path, "\(rng.next())"], label) else { return }
            var written = Transcript(), synced = Transcript()
            let deadline = ContinuousClock.now + .milliseconds(20 + Int(rng.below(231)))
            while ContinuousClock.now < deadline {
                Self.collect(writer, into: &written, until: min(deadline, ContinuousClock.now + .milliseconds(2)))
                Self.collect(syncer, into: &synced, until: min(deadline, ContinuousClock.now + .milliseconds(2)))
            }
            guard Self.kill(writer, into: &written, "\(label), writer") else { return }
            // One more durability point after the writer's death (a generous
            // deadline: an fsync on a busy machine's disk can take seconds).
            let before = synced.lines.count
            Self.collect(syncer, into: &synced, until: ContinuousClock.now + .seconds(30)) { $0.lines.count > before + 1 }
            #expect(synced.lines.count > before, "\(label): the syncer made no durability point after the writer died: \(syncer.errorOutput())")
            if synced.lines.count > before { syncsAfterDeath += 1 }
            guard Self.kill(syncer, into: &synced, "\(label), syncer") else { return }
            rounds += 1
            let problems = written.problems(startingAfter: current)
            #expect(problems.isEmpty, "\(label): writer: \(problems.prefix(5))")
            #expect(written.lines.allSatisfy { if case .deferred = $0 { true } else { false } })
            let committed = written.commits
            let lastStarted = (committed.last ?? current) + 1
            // Each sync returns a version the writer committed (or the start;
            // or the one whose commit published it just before the kill).
            let unknown = synced.lines.filter { line in
                guard case let .synced(v) = line else { return true }
                return v != current && v != lastStarted && !committed.contains(v)
            }
            #expect(unknown.isEmpty, "\(label): the syncer acknowledged versions nobody committed: \(unknown.prefix(5)) (writer: \(committed.first ?? 0)…\(committed.last ?? 0))")
            let acknowledged = max(current, synced.durable)
            if acknowledged > current { sealedByOther += 1 }
            guard let found = try Self.reopenAndCheck(path, allowed: acknowledged...lastStarted, label) else { return }
            if found > acknowledged { pastAcknowledged += 1 }
            current = found
        }
        let elapsed = ContinuousClock.now - started
        print("GroupedCrashKillTests (sync by another process): \(rounds) rounds, final v\(current); "
              + "\(sealedByOther) rounds where the syncer sealed the writer's group, \(syncsAfterDeath) syncs after the writer's death, "
              + "\(pastAcknowledged) reopens past the acknowledged version; seed \(Self.seed); \(elapsed)")
        #expect(rounds >= 8)
        #expect(sealedByOther > 0)
    }

    /// A writer dies right after writing the record of a deferred commit,
    /// before publishing it: it overwrote the record of the group's previous
    /// member, the published version. Another process has the database open
    /// the whole time (no first opener runs). That process must still read
    /// the latest version, and its next commit must build on everything the
    /// dead writer published — never reuse a version number others saw, never
    /// drop the group members it read — and a `sync()` makes all of it
    /// durable. Runtime: about 2–3 s for the five cases.
    @Test(arguments: [1, 2, 3, 5, 8])
    func aWriterKilledBetweenItsUnsealedRecordAndItsPublicationLosesNothingOthersSaw(recordsBeforeDeath: Int) throws {
        let dir = try TemporaryDirectory(prefix: "firn-group-kill-record")
        let path = dir.file("record.firn")
        _ = try GroupModel.createStore(at: path)
        let observer = try Store.open(path, options: .pageCommits)
        defer { observer.close() }
        // A first group member, so the dead writer continues an open group.
        try GroupModel.commit(observer, durability: .deferred)
        let durableBase = try observer.durableVersion
        let child = try ChildProcess.testkit(["group-loop", path, "7", "0", "\(recordsBeforeDeath)"])
        var transcript = Transcript()
        Self.collect(child, into: &transcript, until: ContinuousClock.now + .seconds(20))
        #expect(child.waitForExit(timeout: .seconds(10)) == SIGKILL, "the writer did not die after its record: \(child.errorOutput())")
        let published = try observer.currentVersion
        let acknowledged = transcript.commits
        #expect(acknowledged.count == recordsBeforeDeath - 1, "\(transcript.lines)")
        #expect(published == acknowledged.last ?? durableBase + 1)
        // Readers of the surviving session see at least what was published.
        let snapshot = try observer.snapshot()
        #expect(snapshot.version >= published, "a snapshot after the writer's death is at v\(snapshot.version), below the published v\(published)")
        let snapshotProblems = try GroupModel.problems(snapshot)
        #expect(snapshotProblems.isEmpty, "v\(snapshot.version): \(snapshotProblems.prefix(5))")
        snapshot.close()
        // The next commit builds on it.
        let next = try GroupModel.commit(observer, durability: .deferred)
        #expect(next > published, "the commit after the writer's death is v\(next), but v\(published) was published before it")
        #expect(try observer.currentVersion == next)
        #expect(try observer.sync() == next)
        let nextProblems = try GroupModel.problems(observer, version: next)
        #expect(nextProblems.isEmpty, "v\(next): \(nextProblems.prefix(5))")
        observer.close()
        let found = try Self.reopenAndCheck(path, allowed: next...next, "reopened after the sync")
        #expect(found == next)
    }
}

/// The contents of the grouped-commit workload (`GroupFormat` in
/// `Sources/firn-testkit/GroupCommands.swift`): a function of the version.
/// Version 1 is the new file, with no trees; commit V of tree "g" puts
/// "v" + V (u64 big-endian) → `value(V)` and "head" → V (u64 little-endian),
/// and deletes the key of V − 40.
enum GroupModel {
    static let tree = "g"
    static let window: UInt64 = 40
    static let sizes = [40, 8, 700, 40, 5000, 40, 17000]

    static func key(_ version: UInt64) -> [UInt8] {
        [UInt8(ascii: "v")] + withUnsafeBytes(of: version.bigEndian) { Array($0) }
    }

    static let headKey = Array("head".utf8)

    static func value(_ version: UInt64) -> [UInt8] {
        let size = sizes[Int(version % UInt64(sizes.count))]
        return (0..<size).map { UInt8(truncatingIfNeeded: version &* 151 &+ UInt64($0) &* 7) }
    }

    static func head(_ version: UInt64) -> [UInt8] {
        withUnsafeBytes(of: version.littleEndian) { Array($0) }
    }

    /// Version `version`'s contents.
    static func contents(_ version: UInt64) -> LedgerModel.Contents {
        guard version >= 2 else { return [:] }
        var entries: [[UInt8]: [UInt8]] = [headKey: head(version)]
        for v in max(2, version >= window ? version - window + 1 : 2)...version { entries[key(v)] = value(v) }
        return [tree: entries]
    }

    /// Creates the file (version 1, empty); returns its version.
    static func createStore(at path: String) throws -> UInt64 {
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        return try store.currentVersion
    }

    /// Commits the next version as the workload does; returns it.
    @discardableResult
    static func commit(_ store: Store, durability: CommitDurability) throws -> UInt64 {
        let txn = try store.beginWriteBlocking()
        guard let tree = try txn.tree(tree) else { throw LedgerFailure("cannot create tree") }
        let version = txn.version
        try tree.put(key(version), value(version))
        if version >= 2 + window { try tree.delete(key(version - window)) }
        try tree.put(headKey, head(version))
        return try txn.commit(durability: durability)
    }

    /// What is wrong with `snapshot`: Verifier findings, or contents that
    /// are not its version's.
    static func problems(_ snapshot: Snapshot, slots: CommitSlots? = nil) throws -> [String] {
        let inspection = try StoreInspection.inspect(snapshot, slots: slots)
        if !inspection.findings.isEmpty { return inspection.findings.map { "verify: \($0)" } }
        let expected = contents(snapshot.version)
        return LedgerModel.same(inspection.contents, expected)
            ? [] : ["contents: \(StoreInspection.difference(inspection.contents, expected))"]
    }

    /// The same for `store`'s latest version, which must be `version`.
    static func problems(_ store: Store, version: UInt64) throws -> [String] {
        let snapshot = try store.snapshot(label: "group check")
        defer { snapshot.close() }
        guard snapshot.version == version else { return ["the latest version is v\(snapshot.version), not v\(version)"] }
        return try problems(snapshot, slots: try store.readSlots())
    }
}

extension ChildTranscript where Line == GroupedCrashKillTests.Line {
    /// The highest version acknowledged durable (a sync or a durable commit returned it).
    var durable: UInt64 {
        lines.compactMap { line in
            switch line {
            case let .synced(v), let .durableCommit(v): return v
            case .deferred: return nil
            }
        }.max() ?? 0
    }

    /// Commits numbered on from `start`, each sync acknowledging the
    /// commit before it; what is wrong otherwise.
    func problems(startingAfter start: UInt64) -> [String] {
        var problems = malformed.map { "unexpected output \"\($0)\"" }
        var last = start
        for line in lines {
            switch line {
            case let .deferred(v), let .durableCommit(v):
                if v != last + 1 { problems.append("commit v\(v) after v\(last)") }
                last = v
            case let .synced(v):
                if v != last { problems.append("sync() returned v\(v) right after the commit of v\(last)") }
            }
        }
        return problems
    }
}
