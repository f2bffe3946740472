import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Process crashes: a child process (`firn-testkit commit-loop`) commits
/// ledger transfers in a loop and acknowledges each returned commit on
/// stdout; it is SIGKILLed at a random moment, and the file must then open
/// with the Verifier clean, the ledger's total intact, and no acknowledged
/// commit lost (the opened version is the last acknowledged one, or the one
/// after it when the kill fell after the in-flight commit's record write).
/// The next child continues on the same file, so each round also recovers a
/// writer lock and pins whose owner died.
///
/// A kill loses no write the process made (the page cache survives it), so
/// these tests cannot see a missing fsync (`PowerLossTests` does); they catch
/// a commit that becomes current before all its pages are written, a version
/// published or acknowledged before its record, a half-updated structure
/// left reachable, and a writer lock or pin that a dead owner wedges.
@Suite struct CrashKillTests {
    /// `FIRN_CRASH_SEED` replays a failing run.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["FIRN_CRASH_SEED"].flatMap { UInt64($0) } ?? 0xF1_2A_C0_DE
    }

    @Test func killedWriterNeverLosesAnAcknowledgedCommit() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kill")
        let path = dir.file("kill.firn")
        var (durable, _) = try LedgerModel.createStore(at: path)
        var rng = SeededGenerator(seed: Self.seed)
        let rounds = 60
        let started = ContinuousClock.now
        var kills = 0, acknowledged = 0, unacknowledgedButDurable = 0, killedBeforeFirstCommit = 0
        for round in 0..<rounds {
            let childSeed = rng.next()
            guard let child = try ChildProcess.readyTestkit(["commit-loop", path, "\(childSeed)"], "round \(round)") else { return }
            // Kill after a random time, or after a random number of acknowledgements.
            var acks: [UInt64] = []
            var malformed: [String] = []
            let byCount = rng.chance(1, in: 4)
            let wantedAcks = 1 + Int(rng.below(25))
            let deadline = ContinuousClock.now + .milliseconds(20 + Int(rng.below(381)))
            while true {
                let remaining = byCount ? Duration.seconds(20) : deadline - ContinuousClock.now
                if remaining <= .zero { break }
                guard let line = child.readLine(timeout: remaining) else { break }
                if let version = UInt64(line) { acks.append(version) } else { malformed.append(line) }
                if byCount && acks.count >= wantedAcks { break }
            }
            child.kill(SIGKILL)
            let status = child.waitForExit(timeout: .seconds(10))
            #expect(status == SIGKILL, "round \(round): the child ended with \(String(describing: status)) before the kill: \(child.errorOutput())")
            guard status == SIGKILL else { return }
            kills += 1
            // Lines written before the kill are still in the pipe.
            while let line = child.readLine(timeout: .seconds(2)) {
                if let version = UInt64(line) { acks.append(version) } else { malformed.append(line) }
            }
            #expect(malformed.isEmpty, "round \(round): unexpected output \(malformed)")
            #expect(acks == acks.sorted() && Set(acks).count == acks.count, "round \(round): acknowledgements out of order: \(acks)")
            let lastAcknowledged = max(durable, acks.last ?? 0)
            acknowledged += acks.count
            if acks.isEmpty { killedBeforeFirstCommit += 1 }

            let store = try Store.open(path, options: .pageCommits)
            let inspection = try StoreInspection.inspect(store)
            // The dead child's pins are stale, never live; and they do not pile up
            // round after round (the next writer releases them).
            let pins = store.pins()
            store.close()
            #expect(!pins.contains { !$0.stale }, "round \(round): a live pin after the kill: \(pins)")
            #expect(pins.count <= 3, "round \(round): \(pins.count) pins left behind by dead children")
            #expect(inspection.problems.isEmpty,
                    "round \(round) (child seed \(childSeed)): v\(inspection.version): \(inspection.problems.prefix(10))")
            // No acknowledged commit lost; at most the one commit in flight gained.
            #expect(inspection.version >= lastAcknowledged,
                    "round \(round): opened v\(inspection.version) but v\(lastAcknowledged) was acknowledged")
            #expect(inspection.version <= lastAcknowledged + 1,
                    "round \(round): opened v\(inspection.version), more than one past the acknowledged v\(lastAcknowledged)")
            // One past: the kill came after the in-flight commit's record write (a killed
            // process loses nothing it wrote), typically during its final fdatasync.
            if inspection.version == lastAcknowledged + 1 { unacknowledgedButDurable += 1 }
            guard inspection.problems.isEmpty, inspection.version >= lastAcknowledged else { return }
            durable = inspection.version
        }
        let elapsed = ContinuousClock.now - started
        print("CrashKillTests: \(kills) kills, \(acknowledged) acknowledged commits, final v\(durable); "
              + "\(unacknowledgedButDurable) kills fell after the in-flight commit's record write (opened one past the acknowledged version), "
              + "\(killedBeforeFirstCommit) before the child's first commit; seed \(Self.seed); \(elapsed)")
        #expect(kills >= 50)
    }
}
