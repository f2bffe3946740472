import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Process kills while committing through the commit log (FORMAT.md 8.2).
/// A child (`firn-testkit log-loop`) runs the ledger workload with
/// `commitLogPages` small (4–16 pages), so a checkpoint comes every few
/// commits (the region fills, a transaction is large, frames a first opener
/// dropped lie past the published version), mixing durable commits,
/// deferred ones and `Store.sync()` (a seal frame, or a checkpoint when no
/// seal fits). It prints every call after it returned, with the durable
/// version then. Each round the child is SIGKILLed after a random time or
/// number of lines, or kills itself right after its K-th write to the file
/// or its K-th commit-record write (an exact point inside a frame's or a
/// checkpoint's writes: pages written and no record, a record written and
/// no sync, a frame written and not published). The next child continues
/// on the same file.
///
/// The reopen after every round is a first opener (nobody has the file
/// open): it takes the newest checkpoint and that log's durable version, so
/// an open group of deferred frames is dropped. It must open at a version
/// from the last acknowledged durable one to the last one started, with the
/// Verifier clean and the ledger's total intact; and every commit of that
/// history must be there: each commit puts a marker (version → the child's
/// seed), so the markers present must be exactly those of the commits
/// acknowledged up to the opened version (plus the commit that was in
/// flight, when the version opened is its), none of a later or lost one.
///
/// A kill loses no write (the page cache survives it): these tests do not
/// see a missing sync (`CommitLogCheckpointPowerLossTests` does). They catch
/// a frame or checkpoint acknowledged before it is written, a frame chained
/// after one the first opener dropped, a checkpoint that loses or repeats a
/// frame's changes, a region reused while a version still needs it, and a
/// dead writer's lock or pin that wedges the next one.
@Suite(.serialized) struct CommitLogCrashKillTests {
    /// `FIRN_CRASH_SEED` replays a failing run.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["FIRN_CRASH_SEED"].flatMap { UInt64($0) } ?? 0x10_6C_0E_11
    }

    /// The marker tree of `log-loop` (`LogLoopFormat` in
    /// `Sources/firn-testkit/LogCommands.swift`): key = version (u64
    /// big-endian), value = the child's seed (u64 little-endian).
    static let markerTree = "acks"

    /// One line of a child: "D V DUR", "c V DUR" or "s V DUR".
    enum Line: Equatable, TranscriptLine {
        case durableCommit(UInt64, durable: UInt64)
        case deferred(UInt64, durable: UInt64)
        case synced(UInt64, durable: UInt64)

        init?(_ text: String) {
            let words = text.split(separator: " ")
            guard words.count == 3, let version = UInt64(words[1]), let durable = UInt64(words[2]) else { return nil }
            switch words[0] {
            case "D": self = .durableCommit(version, durable: durable)
            case "c": self = .deferred(version, durable: durable)
            case "s": self = .synced(version, durable: durable)
            default: return nil
            }
        }

        var version: UInt64 {
            switch self {
            case let .durableCommit(v, _), let .deferred(v, _), let .synced(v, _): return v
            }
        }

        var durable: UInt64 {
            switch self {
            case let .durableCommit(_, d), let .deferred(_, d), let .synced(_, d): return d
            }
        }

        var committed: UInt64? {
            switch self {
            case let .durableCommit(v, _), let .deferred(v, _): return v
            case .synced: return nil
            }
        }
    }

    typealias Transcript = ChildTranscript<Line>


    /// What a reopened store holds at its current version.
    struct Reopened {
        var version: UInt64
        var problems: [String]
        /// Marker version → the seed of the child that wrote it.
        var markers: [UInt64: UInt64]
        /// The version opened is a frame (past its checkpoint), not a checkpoint.
        var atFrame: Bool
        /// What the child was doing when it died, as the file tells.
        var inFlight: InFlight
    }

    enum InFlight: String {
        case frameWritten = "after a frame's write"
        case recordWritten = "after a checkpoint's record write"
        case checkpointPages = "inside a checkpoint's page writes"
    }

    static func decodeU64(_ bytes: [UInt8], bigEndian: Bool) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        let ordered = bigEndian ? bytes : bytes.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Verifies `snapshot` and reads it: the problems (Verifier findings,
    /// the ledger invariant) and the markers.
    static func inspect(_ snapshot: Snapshot, slots: CommitSlots) throws -> (problems: [String], markers: [UInt64: UInt64]) {
        let report = Verifier.verify(snapshot, slots: slots)
        var problems = report.findings.map { "verify: \($0)" }
        var markers: [UInt64: UInt64] = [:]
        guard report.findings.isEmpty else { return (problems, markers) }
        var contents = try StoreInspection.read(snapshot)
        for (key, value) in contents.removeValue(forKey: markerTree) ?? [:] {
            guard let v = decodeU64(key, bigEndian: true), let seed = decodeU64(value, bigEndian: false) else {
                problems.append("a malformed marker \(key) → \(value)")
                continue
            }
            markers[v] = seed
        }
        problems += LedgerModel.problems(in: contents).map { "ledger: \($0)" }
        return (problems, markers)
    }

    /// Opens `path` as a first opener and inspects its current version.
    static func reopen(_ path: String, pages: UInt32, lastStarted: UInt64) throws -> Reopened {
        let store = try Store.open(path, options: .commitLog(pages: pages, create: false))
        defer { store.close() }
        var problems: [String] = []
        let version = try store.currentVersion
        let durable = try store.durableVersion
        if durable != version { problems.append("a first opener's durable version v\(durable) is not the version it opened, v\(version)") }
        let pins = store.pins()
        if pins.contains(where: { !$0.stale }) { problems.append("a live pin after the kill: \(pins)") }
        if pins.count > 3 { problems.append("\(pins.count) pins left behind by dead children") }
        let snapshot = try store.snapshot(label: "log crash-test inspection")
        defer { snapshot.close() }
        if snapshot.version != version { problems.append("the latest snapshot is v\(snapshot.version), not v\(version)") }
        let slots = try store.readSlots()
        let (found, markers) = try inspect(snapshot, slots: slots)
        problems += found
        // What the dead child had written of its last call (used when it
        // killed itself right after a write: a checkpoint's record, a frame
        // or seal, or else one of a checkpoint's pages).
        let newest = try #require(slots.newest)
        let scan = try store.log.scan(of: newest)
        let inFlight: InFlight
        if newest.version >= lastStarted {
            inFlight = .recordWritten
        } else if let scan, scan.newestVersion >= lastStarted || scan.frames.last?.header.kind == .seal && scan.newestVersion == lastStarted - 1 {
            inFlight = .frameWritten
        } else {
            inFlight = .checkpointPages
        }
        let atFrame = newest.logRegion != nil && version > newest.version
        return Reopened(version: version, problems: problems, markers: markers, atFrame: atFrame, inFlight: inFlight)
    }

    /// How a round's child dies.
    enum Death {
        /// SIGKILLed after `milliseconds`, or after `lines` lines.
        case killedAfter(milliseconds: Int)
        case killedAfterLines(Int)
        /// Kills itself right after its K-th write ("K") or commit-record write ("rK").
        case killsItself(String)

        static func random(_ rng: inout SeededGenerator) -> Death {
            switch rng.below(12) {
            case 0..<4: return .killsItself("\(1 + rng.below(150))")
            case 4..<6: return .killsItself("r\(1 + rng.below(4))")
            case 6..<8: return .killedAfterLines(1 + Int(rng.below(40)))
            default: return .killedAfter(milliseconds: 10 + Int(rng.below(241)))
            }
        }

        var description: String {
            switch self {
            case let .killedAfter(ms): return "killed after \(ms) ms"
            case let .killedAfterLines(n): return "killed after \(n) lines"
            case let .killsItself(after): return "dies right after write \(after)"
            }
        }
    }

    /// Runs a `log-loop` child until it dies as `death` says; what it
    /// printed, or nil after recording an issue.
    static func runChild(path: String, seed childSeed: UInt64, pages: UInt32, death: Death, _ label: String) throws -> Transcript? {
        var arguments = ["log-loop", path, "\(childSeed)", "\(pages)"]
        if case let .killsItself(after) = death { arguments.append(after) }
        guard let child = try ChildProcess.readyTestkit(arguments, label) else { return nil }
        var transcript = Transcript()
        let deadline: ContinuousClock.Instant
        var wanted = Int.max
        switch death {
        case let .killedAfter(milliseconds): deadline = .now + .milliseconds(milliseconds)
        case let .killedAfterLines(lines):
            deadline = .now + .seconds(20)
            wanted = lines
        case .killsItself: deadline = .now + .seconds(20)
        }
        // Until the deadline, enough lines, or stdout closing (it killed itself).
        while transcript.lines.count < wanted {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, let line = child.readLine(timeout: remaining) else { break }
            transcript.add(line)
        }
        if case .killsItself = death {} else { child.kill(SIGKILL) }
        let status = child.waitForExit(timeout: .seconds(10))
        guard status == SIGKILL else {
            child.kill(SIGKILL)
            Issue.record("\(label): the child ended with \(String(describing: status)) before it was killed: \(child.errorOutput())")
            return nil
        }
        // Lines written before the kill are still in the pipe.
        while let line = child.readLine(timeout: .milliseconds(200)) { transcript.add(line) }
        return transcript
    }

    /// The markers `found` at `version` against those expected: `history`
    /// up to `version`, the child's commits up to it, and the commit in
    /// flight when `version` is its. Missing (or another child's) and
    /// extra markers' versions.
    static func markerDifference(found: [UInt64: UInt64], history: [UInt64: UInt64], commits: [UInt64], childSeed: UInt64,
                                 version: UInt64, lastStarted: UInt64) -> (missing: [UInt64], extra: [UInt64]) {
        var expected = history.filter { $0.key <= version }
        for v in commits where v <= version { expected[v] = childSeed }
        if version == lastStarted, found[version] == childSeed, expected[version] == nil {
            // The commit in flight, written before the kill.
            expected[version] = childSeed
        }
        let missing = expected.filter { found[$0.key] != $0.value }.keys.sorted()
        let extra = found.filter { expected[$0.key] == nil }.keys.sorted()
        return (missing, extra)
    }

    /// Each round: a `log-loop` child on a region of 4, 8 or 16 pages; in a
    /// third of the rounds it kills itself right after its K-th write
    /// (K in 1…150), in a sixth right after its K-th commit-record write
    /// (K in 1…4), otherwise it is SIGKILLed after 10–250 ms or a random
    /// number of lines. Rounds until 80 kills or about 16 s; on a loaded
    /// machine (children then start slowly) on past 16 s until the checks at
    /// the end have their minimum kills and every kind of kill they count,
    /// for at most 150 s. Runtime: about 10–16 s.
    @Test func aKilledLogWriterKeepsEveryAcknowledgedCommit() throws {
        let dir = try TemporaryDirectory(prefix: "firn-log-kill")
        let path = dir.file("log-kill.firn")
        var (current, _) = try LedgerModel.createStore(at: path)
        var rng = SeededGenerator(seed: Self.seed)
        let started = ContinuousClock.now
        // The markers the file must hold: version → seed of the child whose commit it was.
        var history: [UInt64: UInt64] = [:]
        var kills = 0, selfKills = 0, lines = 0, atAcknowledged = 0, pastAcknowledged = 0, groupsLost = 0, atFrame = 0
        var inFlight: [InFlight: Int] = [:]
        while kills < 80 && ContinuousClock.now - started < .seconds(16)
                || (kills < 30 || groupsLost == 0 || atFrame == 0 || (inFlight[.checkpointPages] ?? 0) == 0
                    || (inFlight[.recordWritten] ?? 0) == 0) && ContinuousClock.now - started < .seconds(150) {
            let pages: UInt32 = [4, 8, 8, 8, 16][Int(rng.below(5))]
            let childSeed = rng.next()
            let death = Death.random(&rng)
            let label = "round \(kills) (child seed \(childSeed), \(pages) pages, \(death.description))"
            guard let transcript = try Self.runChild(path: path, seed: childSeed, pages: pages, death: death, label) else { return }
            kills += 1
            if case .killsItself = death { selfKills += 1 }
            lines += transcript.lines.count
            let problems = transcript.problems(startingAfter: current)
            #expect(problems.isEmpty, "\(label): \(problems.prefix(5))")
            guard problems.isEmpty else { return }
            let acknowledged = max(current, transcript.durable)
            let lastStarted = (transcript.last ?? current) + 1

            let reopened = try Self.reopen(path, pages: pages, lastStarted: lastStarted)
            let version = reopened.version
            #expect(reopened.problems.isEmpty, "\(label): v\(version): \(reopened.problems.prefix(8))")
            guard (acknowledged...lastStarted).contains(version) else {
                Issue.record("\(label): opened v\(version), expected v\(acknowledged)…v\(lastStarted) (the last acknowledged durable version … the call in flight)")
                return
            }
            // The markers: those of every commit up to the version opened,
            // each written by the child that acknowledged it, nothing later.
            let (missing, extra) = Self.markerDifference(found: reopened.markers, history: history, commits: transcript.commits,
                                                         childSeed: childSeed, version: version, lastStarted: lastStarted)
            #expect(missing.isEmpty && extra.isEmpty,
                    "\(label): opened v\(version); markers of acknowledged commits missing or from another child: \(missing.prefix(10)); markers of commits not in this history: \(extra.prefix(10))")
            guard reopened.problems.isEmpty, missing.isEmpty, extra.isEmpty else { return }
            history = reopened.markers

            if version == acknowledged { atAcknowledged += 1 } else { pastAcknowledged += 1 }
            if let last = transcript.commits.last, version < last { groupsLost += 1 }
            if reopened.atFrame { atFrame += 1 }
            if case .killsItself = death { inFlight[reopened.inFlight, default: 0] += 1 }
            current = version
        }
        let elapsed = ContinuousClock.now - started
        print("CommitLogCrashKillTests: \(kills) kills (\(selfKills) by the child itself right after a write: "
              + "\(inFlight.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)×" }.joined(separator: ", "))), "
              + "\(lines) lines, final v\(current), \(history.count) markers; reopened at the last acknowledged durable version \(atAcknowledged)×, "
              + "past it \(pastAcknowledged)×, at a frame \(atFrame)×; \(groupsLost) open groups dropped; seed \(Self.seed); \(elapsed)")
        #expect(kills >= 30)
        #expect(groupsLost > 0, "no kill fell inside an open group")
        #expect(atFrame > 0, "no reopen landed on a frame")
        #expect((inFlight[.checkpointPages] ?? 0) > 0, "no kill fell inside a checkpoint's page writes")
        #expect((inFlight[.recordWritten] ?? 0) > 0, "no kill fell right after a checkpoint's record write")
    }

    /// Commits a ledger transfer of 1 from account 0 to account 1 (or back)
    /// with a marker of `seed`, through `store`; returns the version.
    static func observerCommit(_ store: Store, seed: UInt64, durability: CommitDurability) throws -> UInt64 {
        let txn = try store.beginWriteBlocking()
        guard let accounts = try txn.tree(LedgerModel.accountsTree, create: false), let markers = try txn.tree(markerTree),
              let a = try accounts.get(LedgerModel.accountKey(0)).flatMap(LedgerModel.balance),
              let b = try accounts.get(LedgerModel.accountKey(1)).flatMap(LedgerModel.balance) else {
            throw LedgerFailure("the ledger is missing")
        }
        let (from, to): (UInt64, UInt64) = a > 0 ? (0, 1) : (1, 0)
        let (fromBalance, toBalance) = from == 0 ? (a, b) : (b, a)
        try accounts.put(LedgerModel.accountKey(from), LedgerModel.accountValue(from, balance: fromBalance - 1))
        try accounts.put(LedgerModel.accountKey(to), LedgerModel.accountValue(to, balance: toBalance + 1))
        try markers.put(withUnsafeBytes(of: txn.version.bigEndian) { Array($0) }, withUnsafeBytes(of: seed.littleEndian) { Array($0) })
        return try txn.commit(durability: durability)
    }

    /// Another store has the file open the whole time, so no first opener
    /// runs: a version the dead child published stays (a kill loses no
    /// write), and the survivor builds on it. Deferred commits the child
    /// still kept in memory (FORMAT.md 8.1) were never published and are
    /// gone with it. Each round the child dies as in the test above; then
    /// the survivor must read at least everything the child acknowledged
    /// durable and at most the commit in flight, every marker of each
    /// commit up to the version it reads,
    /// verify clean, and commit on top — on the published version, or on
    /// the child's checkpoint whose record it wrote and never published
    /// (FORMAT.md 2.1); never after a frame it wrote and never published
    /// (FORMAT.md 8.2) — and `sync()`. At the end, a first opener finds
    /// the survivor's last durable version whole. Rounds until 30 or about
    /// 7 s (on a loaded machine on past that until the checks at the end
    /// have their minimum rounds and a kill that left a frame or checkpoint
    /// past the published version, for at most 120 s). Runtime: about 3–7 s.
    @Test func aLogWriterKilledWhileAnotherStoreHasTheFileOpenLosesNothingPublished() throws {
        let dir = try TemporaryDirectory(prefix: "firn-log-kill-open")
        let path = dir.file("log-kill-open.firn")
        _ = try LedgerModel.createStore(at: path)
        let pages: UInt32 = 8
        let survivor = try Store.open(path, options: StoreOptions.commitLog(pages: pages, create: false))
        var current = try survivor.currentVersion
        var rng = SeededGenerator(seed: Self.seed ^ 0x0B5E)
        let started = ContinuousClock.now
        let survivorSeed: UInt64 = 0x5A5A
        var history: [UInt64: UInt64] = [:]
        // The survivor pins a commit of the log across every kill and
        // checkpoint below: another process reads it at the end as it read
        // it here (FORMAT.md 7, epoch entries).
        _ = try Self.observerCommit(survivor, seed: survivorSeed, durability: .durable)
        current = try survivor.currentVersion
        history[current] = survivorSeed
        let pinned = try survivor.snapshot(kind: .frozen, label: "pinned across the kills")
        let pinnedContents = try StoreInspection.read(pinned)
        var rounds = 0, unpublished = 0, checkpointsAfter = 0, adoptedCheckpoints = 0, deferredLost = 0
        while rounds < 30 && ContinuousClock.now - started < .seconds(7)
                || (rounds < 10 || unpublished == 0) && ContinuousClock.now - started < .seconds(120) {
            let childSeed = rng.next()
            let death = Death.random(&rng)
            let label = "round \(rounds) (child seed \(childSeed), \(death.description))"
            guard let transcript = try Self.runChild(path: path, seed: childSeed, pages: pages, death: death, label) else { return }
            rounds += 1
            let problems = transcript.problems(startingAfter: current)
            #expect(problems.isEmpty, "\(label): \(problems.prefix(5))")
            guard problems.isEmpty else { return }
            let returned = transcript.last ?? current
            let lastStarted = returned + 1
            let acknowledged = max(current, transcript.durable)
            let published = try survivor.currentVersion
            guard (acknowledged...lastStarted).contains(published) else {
                Issue.record("\(label): the survivor reads v\(published) as the latest, expected v\(acknowledged)…v\(lastStarted) (the child's last durable version … the commit in flight)")
                return
            }
            if published < returned { deferredLost += 1 }
            let snapshot = try survivor.snapshot(label: "survivor")
            let (found, markers) = try Self.inspect(snapshot, slots: try survivor.readSlots())
            snapshot.close()
            #expect(found.isEmpty, "\(label): v\(published): \(found.prefix(8))")
            let (missing, extra) = Self.markerDifference(found: markers, history: history, commits: transcript.commits,
                                                         childSeed: childSeed, version: published, lastStarted: lastStarted)
            #expect(missing.isEmpty && extra.isEmpty,
                    "\(label): v\(published); markers missing or from another child: \(missing.prefix(10)); markers of commits not in this history: \(extra.prefix(10))")
            guard found.isEmpty, missing.isEmpty, extra.isEmpty else { return }
            // A frame or checkpoint written past the published version? The
            // survivor's first commit builds on the published version, or
            // on the dead child's checkpoint when its record was written
            // (FORMAT.md 2.1: a writer whose newest record is not the
            // published version checks it and builds on it); a frame past
            // the published version is never taken in (FORMAT.md 8.2).
            let newest = try #require(try survivor.readSlots().newest)
            let newestFrame = try survivor.log.scan(of: newest)?.newestVersion ?? 0
            if newest.version > published || newestFrame > published { unpublished += 1 }
            let adopted = newest.version > published
            let base = adopted ? newest.version : published
            // The survivor commits on top, deferred then durable, and syncs.
            let first = try Self.observerCommit(survivor, seed: survivorSeed, durability: .deferred)
            #expect(first == base + 1, "\(label): the survivor committed v\(first) on top of v\(base) (published v\(published), newest record v\(newest.version))")
            if adopted { adoptedCheckpoints += 1 }
            let second = try Self.observerCommit(survivor, seed: survivorSeed, durability: rng.chance(1, in: 2) ? .durable : .deferred)
            let synced = try survivor.sync()
            let durableAfterSync = try survivor.durableVersion
            #expect(synced >= second && durableAfterSync == synced, "\(label): sync() returned v\(synced) after v\(second), durable v\(durableAfterSync)")
            let newestAfter = try survivor.readSlots().newest?.version ?? 0
            if newestAfter > published { checkpointsAfter += 1 }
            let after = try survivor.snapshot(label: "survivor after")
            let (afterProblems, afterMarkers) = try Self.inspect(after, slots: try survivor.readSlots())
            after.close()
            var expected = markers
            expected[first] = survivorSeed
            expected[second] = survivorSeed
            if adopted, afterMarkers[base] == childSeed {
                // The adopted checkpoint was a commit's (not a sync's): its marker.
                expected[base] = childSeed
            }
            #expect(afterProblems.isEmpty && afterMarkers == expected,
                    "\(label): after the survivor's commits v\(first), v\(second) and sync (v\(synced)): \(afterProblems.prefix(5)); markers differ at \(Set(afterMarkers.keys).symmetricDifference(expected.keys).sorted().prefix(10))")
            guard afterProblems.isEmpty, afterMarkers == expected else { return }
            history = afterMarkers
            current = synced
        }
        let other = try Store.open(path, options: StoreOptions.commitLog(pages: pages, create: false))
        let read = try other.snapshot(version: pinned.version, label: "another process")
        #expect(try StoreInspection.read(read) == pinnedContents,
                "v\(pinned.version), pinned across \(rounds) kills, reads differently in another store")
        #expect(try other.readSlots().record(version: pinned.info.version) == nil || rounds < 3,
                "the pinned commit's checkpoint left the slots")
        read.close()
        other.close()
        pinned.close()
        survivor.close()
        let reopened = try Self.reopen(path, pages: pages, lastStarted: current + 1)
        #expect(reopened.problems.isEmpty && reopened.version == current && reopened.markers == history,
                "a first opener after the survivor closed: v\(reopened.version) (expected v\(current)): \(reopened.problems.prefix(5))")
        let elapsed = ContinuousClock.now - started
        print("CommitLogCrashKillTests (another store open): \(rounds) rounds, final v\(current), \(history.count) markers; "
              + "\(unpublished) kills left a frame or checkpoint past the published version (\(adoptedCheckpoints) checkpoints, adopted by the survivor); "
              + "\(checkpointsAfter) rounds where the survivor's commits checkpointed; "
              + "\(deferredLost) kills took deferred commits the child kept in memory; seed \(Self.seed); \(elapsed)")
        #expect(rounds >= 10)
        #expect(unpublished > 0, "no kill left a frame or checkpoint past the published version")
    }
}

extension ChildTranscript where Line == CommitLogCrashKillTests.Line {
    /// The highest version acknowledged durable: the durable version
    /// read after a call returned.
    var durable: UInt64 { lines.map(\.durable).max() ?? 0 }

    /// The last version a call returned.
    var last: UInt64? { lines.last?.version }

    /// Calls numbered on from `start`: each commit one past the version
    /// before, each sync at it or one past it (a checkpoint), durable
    /// versions never going back and never past the latest; what is
    /// wrong otherwise.
    func problems(startingAfter start: UInt64) -> [String] {
        var problems = malformed.map { "unexpected output \"\($0)\"" }
        var last = start, durable = start
        for line in lines {
            switch line {
            case let .durableCommit(v, d):
                if v != last + 1 { problems.append("commit v\(v) after v\(last)") }
                if d != v { problems.append("a durable commit of v\(v) returned with the durable version at v\(d)") }
            case let .deferred(v, d):
                if v != last + 1 { problems.append("commit v\(v) after v\(last)") }
                if d > v { problems.append("a deferred commit of v\(v) returned with the durable version at v\(d)") }
            case let .synced(v, d):
                if v != last && v != last + 1 { problems.append("sync() returned v\(v) after v\(last)") }
                if d != v { problems.append("sync() returned v\(v) with the durable version at v\(d)") }
            }
            if line.durable < durable { problems.append("the durable version went back from v\(durable) to v\(line.durable)") }
            last = line.version
            durable = max(durable, line.durable)
        }
        return problems
    }
}
