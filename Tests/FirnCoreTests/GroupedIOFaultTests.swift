import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// I/O errors during grouped commits (FORMAT.md 8.1). A fixed ledger
/// workload commits `.deferred`, calls `store.sync()` every few commits and
/// now and then makes a durable commit on top of a pending group; it runs
/// once to count its writes, syncs and extends, then once for every one of
/// them failing (EIO or ENOSPC, once or from then on).
///
/// Expected, and checked after every step:
/// - a failed commit (deferred or durable) throws the injected error and
///   leaves the current version and its contents as they were;
/// - a failed `sync()` throws the injected error, keeps `durableVersion`
///   where it was, and leaves the file opening at the old durable version
///   (a copy of the file as the page cache holds it, opened as a first
///   opener would after a power loss); the retry that follows succeeds (for
///   a fault that fires once) and the copy then opens at the whole group;
/// - `durableVersion` is always exactly the last version whose durability
///   point succeeded: never one whose sync failed;
/// - when the store gives up (a restore failed: "reopen"), a reopen without
///   faults finds the last durable version (the pending group is lost, as
///   a power loss would lose it), never older than any durable version
///   reported before;
/// - at the end (sync, close, reopen without faults) the last successful
///   commit is there, verified clean, not older than any durable version
///   reported along the way, and the store takes a commit.
///
/// How it can fail: a `sync()` that published the durable version before
/// its record was sealed and synced (or despite a failure) shows in the
/// `durableVersion` check; one that left the sealed record behind after a
/// failure shows in the copy opening at the group instead of its base; a
/// deferred commit that wrote over a page the durable base sees shows in the
/// copies and the Verifier; a failed deferred commit that moved the version
/// shows in the current-version check.
///
/// Runtime: about 10 s for the three kinds together in a debug build (write
/// faults are most of it: 135 writes, 270 runs); each run is 12 commits.
@Suite struct GroupedIOFaultTests {
    struct Outcome: LedgerFaultOutcome {
        var writes = 0, syncs = 0, extends = 0
        var injected = 0
        var failedCommits = 0, failedSyncs = 0, recoveredSyncs = 0
        var reopenedAfterFailure = 0
    }

    static let rounds = 12

    /// What round `round` does: a deferred or a durable commit, and whether
    /// `sync()` follows it. Groups are closed by `sync()` after rounds 3 and
    /// 7 and by the final sync; durable commits land on a pending group
    /// (rounds 5 and 10) and right after a sync (round 8); the sync after
    /// round 10 finds nothing pending (it returns at once).
    static func plan(_ round: Int) -> (durability: CommitDurability, sync: Bool) {
        let durable = round == 5 || round == 8 || round == 10
        let sync = round == 3 || round == 7 || round == 10
        return (durable ? .durable : .deferred, sync)
    }

    /// Runs the workload on a new file `name` in `dir` with `fault` installed.
    static func run(fault: FaultyIO.Fault?, in dir: TemporaryDirectory, name: String) throws -> Outcome {
        try dir.withDatabase(name) { path in
            let run = try Run(fault: fault, path: path, dir: dir)
            try run.workload()
            return run.outcome
        }
    }

    /// One run of the workload and what the model expects of it.
    final class Run: LedgerFaultRun<Outcome> {
        init(fault: FaultyIO.Fault?, path: String, dir: TemporaryDirectory) throws {
            try super.init(fault: fault, path: path, dir: dir, seed: 0x6F_A0_17, outcome: Outcome()) { fault in
                var options = StoreOptions.pageCommits
                options.durability = .full
                options.wrapIO = { FaultyIO($0, fault: fault) }
                return try Store.open(path, options: options)
            }
        }

        override func sync(_ step: String) throws {
            try syncTwice(step) { version, _ in
                #expect(version == current.version, "\(label), \(step): sync() returned v\(version), not the latest v\(current.version)")
            }
        }

        /// Stages and commits one round's changes; the error if it failed.
        func attemptCommit(_ round: Int, _ durability: CommitDurability, _ working: inout LedgerModel.Contents) throws -> Result<UInt64, FirnError> {
            let txn = try store.beginWriteBlocking()
            // Overflow values are written when put: a fault can surface there too.
            do {
                try LedgerModel.stageRandomChanges(txn, &working, &rng)
                if round == 2 || round == 9 {
                    // Bigger commits grow the file.
                    for _ in 0..<6 { try LedgerModel.stageRandomChanges(txn, &working, &rng) }
                }
                return .success(try txn.commit(durability: durability))
            } catch let error as FirnError {
                txn.abort()
                return .failure(error)
            }
        }

        func workload() throws {
            for round in 0..<rounds {
                if round == 4 { pinned = (try store.snapshot(label: "pinned across faults"), current) }
                if round == 10, let held = pinned {
                    #expect(try LedgerModel.same(StoreInspection.read(held.snapshot), held.state.contents), "\(label): the pinned snapshot changed")
                    held.snapshot.close()
                    pinned = nil
                }
                let (durability, syncAfter) = plan(round)
                try checkVersions("round \(round)")
                let before = current
                let injectedBefore = faulty.injected.count
                var working = current.contents
                let committed = try attemptCommit(round, durability, &working)
                let injectedNow = Array(faulty.injected.dropFirst(injectedBefore))
                switch committed {
                case let .success(version):
                    #expect(injectedNow.isEmpty, "\(label), round \(round): commit v\(version) returned though \(injectedNow) was injected into it")
                    #expect(version == before.version + 1)
                    current = LedgerVersion(version: version, contents: working)
                    if durability == .durable {
                        durable = current
                        reportedDurable = max(reportedDurable, version)
                    }
                    try checkVersions("round \(round), \(durability) commit")
                case let .failure(error):
                    outcome.failedCommits += 1
                    #expect(injectedNow.contains(error), "\(label), round \(round): \(durability) commit threw \(error), not the injected \(injectedNow)")
                    if try hasFailed() {
                        try reopen("round \(round), after a failed \(durability) commit")
                    } else if outcome.failedCommits <= 3 {
                        // (A persistent fault fails every later commit the same way:
                        // the first few are inspected in full.)
                        try checkVersions("round \(round), after a failed \(durability) commit")
                        let inspection = try StoreInspection.inspect(store)
                        #expect(inspection.problems.isEmpty, "\(label), round \(round): after the failure: \(inspection.problems.prefix(5))")
                        #expect(inspection.version == before.version && LedgerModel.same(inspection.contents, before.contents),
                                "\(label), round \(round): after the failure: v\(inspection.version), \(StoreInspection.difference(inspection.contents, before.contents))")
                        if let held = pinned {
                            #expect(try LedgerModel.same(StoreInspection.read(held.snapshot), held.state.contents), "\(label): the pinned snapshot changed")
                        }
                        if durability == .durable && durable.version < current.version {
                            // The failed durable commit's slot went back to the group's last
                            // unsealed record: a power loss now opens at the durable base.
                            try checkCopy(expected: durable, label: "\(label), round \(round): after the failed durable commit")
                        }
                    } else {
                        try checkVersions("round \(round), after a failed \(durability) commit")
                    }
                }
                if syncAfter { try sync("round \(round), sync") }
            }
            // The end: sync, close, reopen without faults.
            let reopened = try finish { try Store.open($0, options: .pageCommits) }
            defer { reopened.close() }
            var contents = durable.contents
            let txn = try reopened.beginWriteBlocking()
            try LedgerModel.stageRandomChanges(txn, &contents, &rng)
            let version = try txn.commit(durability: .deferred)
            #expect(try reopened.sync() == version)
            let after = try StoreInspection.inspect(reopened)
            #expect(after.problems.isEmpty && after.version == version && LedgerModel.same(after.contents, contents),
                    "\(label): a group after the reopen: \(after.problems.prefix(5))")
        }
    }

    @Test(arguments: FaultyIO.Kind.allCases)
    func everyFailingCallDuringGroupsKeepsTheLastCommitAndTheDurableVersionTruthful(kind: FaultyIO.Kind) throws {
        let started = ContinuousClock.now
        let dir = try TemporaryDirectory(prefix: "firn-group-fault-\(kind)", inMemory: true)
        let sweep = try FaultSweep.sweep(kind) { try Self.run(fault: $0, in: dir, name: $1) }
        let dry = sweep.dry
        #expect(dry.injected == 0 && dry.failedCommits == 0 && dry.failedSyncs == 0)
        for (fault, outcome) in sweep.runs {
            #expect(outcome.failedCommits + outcome.failedSyncs > 0, "fault \(fault) failed no commit and no sync")
        }
        let elapsed = ContinuousClock.now - started
        print("GroupedIOFaultTests [\(kind)]: \(dry.count(kind)) \(kind) calls in the workload; \(sweep.runs.count) runs, "
              + "\(sweep.total(\.injected)) injected faults, \(sweep.total(\.failedCommits)) failed commits, "
              + "\(sweep.total(\.failedSyncs)) failed syncs (\(sweep.total(\.recoveredSyncs)) retried successfully), "
              + "\(sweep.total(\.reopenedAfterFailure)) reopens after the store gave up; \(elapsed)")
    }
}
