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
    struct Outcome {
        var writes = 0, syncs = 0, extends = 0
        var injected = 0
        var failedCommits = 0, failedSyncs = 0, recoveredSyncs = 0
        var reopenedAfterFailure = 0

        func count(_ kind: FaultyIO.Kind) -> Int {
            switch kind {
            case .write: return writes
            case .sync: return syncs
            case .extend: return extends
            }
        }
    }

    /// A version and its contents.
    struct State {
        var version: UInt64
        var contents: LedgerModel.Contents
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

    /// True when `store` refuses use until reopened (a restore failed).
    static func hasFailed(_ store: Store) throws -> Bool {
        do {
            let snapshot = try store.snapshot(label: "failed?")
            snapshot.close()
            return false
        } catch {
            guard case let .misuse(message) = error, message.contains("reopen") else { throw error }
            return true
        }
    }

    /// Opens a copy of the file as it is now (the page cache) as a first
    /// opener would after a power loss, and checks it is `expected`.
    static func checkCopy(of path: String, in dir: TemporaryDirectory, expected: State, label: @autoclosure () -> String) throws {
        let copy = dir.file("copy-\(UInt32.random(in: 0 ... .max)).firn")
        #expect(try FileManager.default.createFile(atPath: copy, contents: Data(PowerLossTests.readFile(path))))
        defer {
            unlink(copy)
            unlink(copy + ".lock")
        }
        let store = try Store.open(copy, options: .pageCommits)
        defer { store.close() }
        let inspection = try StoreInspection.inspect(store)
        #expect(inspection.problems.isEmpty, "\(label()): the file's copy: \(inspection.problems.prefix(5))")
        #expect(inspection.version == expected.version && LedgerModel.same(inspection.contents, expected.contents),
                "\(label()): the file's copy opens at v\(inspection.version), not v\(expected.version)")
        #expect(try store.durableVersion == inspection.version)
    }

    /// Runs the workload on a new file `name` in `dir` with `fault` installed.
    static func run(fault: FaultyIO.Fault?, in dir: TemporaryDirectory, name: String) throws -> Outcome {
        let path = dir.file(name)
        defer {
            unlink(path)
            unlink(path + ".lock")
        }
        let run = try Run(fault: fault, path: path, dir: dir)
        try run.workload()
        return run.outcome
    }

    /// One run of the workload and what the model expects of it.
    final class Run {
        let fault: FaultyIO.Fault?
        let path: String
        let dir: TemporaryDirectory
        let label: String
        var options = StoreOptions.pageCommits
        var store: Store
        var faulty: FaultyIO
        var outcome = Outcome()
        /// The latest version, and the last version a durability point made durable.
        var current: State
        var durable: State
        /// The highest durable version ever reported (durableVersion, sync()).
        var reportedDurable: UInt64
        var rng = SeededGenerator(seed: 0x6F_A0_17)
        var pinned: (snapshot: Snapshot, state: State)? = nil

        init(fault: FaultyIO.Fault?, path: String, dir: TemporaryDirectory) throws {
            self.fault = fault
            self.path = path
            self.dir = dir
            label = fault.map { "fault \($0)" } ?? "dry run"
            let (createdVersion, createdContents) = try LedgerModel.createStore(at: path)
            current = State(version: createdVersion, contents: createdContents)
            durable = current
            options.durability = .full
            options.wrapIO = { FaultyIO($0, fault: fault) }
            // A first opener syncs before it claims its version durable
            // (IOFaultTests covers a fault there): open once without faults,
            // so the faulty store's calls are the grouped workload's own.
            let first = try Store.open(path, options: .pageCommits)
            defer { first.close() }
            store = try Store.open(path, options: options)
            faulty = try #require(store.io as? FaultyIO)
            reportedDurable = try store.durableVersion
            #expect(reportedDurable == durable.version)
        }

        func tally() {
            outcome.writes += faulty.count(.write)
            outcome.syncs += faulty.count(.sync)
            outcome.extends += faulty.count(.extend)
            outcome.injected += faulty.injected.count
        }

        /// The store's versions are what the model says.
        func checkVersions(_ step: String) throws {
            let latest = try store.currentVersion, reported = try store.durableVersion
            #expect(latest == current.version, "\(label), \(step): the store is at v\(latest), not v\(current.version)")
            #expect(reported == durable.version,
                    "\(label), \(step): durableVersion is v\(reported), but the last successful durability point made v\(durable.version) durable")
            reportedDurable = max(reportedDurable, reported)
        }

        /// The store gave up: reopen it without faults (the disk recovered).
        /// A first opener rejects the pending group's unsealed record: the
        /// file opens at the last durable version.
        func reopen(_ step: String) throws {
            outcome.reopenedAfterFailure += 1
            pinned?.snapshot.close()
            pinned = nil
            tally()
            store.close()
            options.wrapIO = { FaultyIO($0, fault: nil) }
            store = try Store.open(path, options: options)
            faulty = try #require(store.io as? FaultyIO)
            let inspection = try StoreInspection.inspect(store)
            #expect(inspection.problems.isEmpty, "\(label), \(step): reopened: \(inspection.problems.prefix(5))")
            #expect(inspection.version == durable.version && LedgerModel.same(inspection.contents, durable.contents),
                    "\(label), \(step): reopened at v\(inspection.version), not at the last durable v\(durable.version)")
            #expect(inspection.version >= reportedDurable,
                    "\(label), \(step): reopened at v\(inspection.version), but v\(reportedDurable) was reported durable")
            current = durable
            try checkVersions(step)
        }

        func attemptSync() -> Result<UInt64, FirnError> {
            do { return .success(try store.sync()) } catch { return .failure(error) }
        }

        /// `sync()`, and once more if it fails; checks every outcome.
        func sync(_ step: String) throws {
            for attempt in 0..<2 {
                let injectedBefore = faulty.injected.count
                let result = attemptSync()
                let injectedNow = Array(faulty.injected.dropFirst(injectedBefore))
                switch result {
                case let .success(version):
                    #expect(injectedNow.isEmpty, "\(label), \(step): sync() returned v\(version) though \(injectedNow) was injected into it")
                    #expect(version == current.version, "\(label), \(step): sync() returned v\(version), not the latest v\(current.version)")
                    reportedDurable = max(reportedDurable, version)
                    let wasPending = durable.version < current.version
                    durable = current
                    try checkVersions(step)
                    if attempt > 0 {
                        outcome.recoveredSyncs += 1
                        // The retry sealed the whole group: a power loss now keeps it.
                        if wasPending { try checkCopy(of: path, in: dir, expected: current, label: "\(label), \(step): after the retried sync") }
                    }
                    return
                case let .failure(error):
                    outcome.failedSyncs += 1
                    #expect(injectedNow.contains(error), "\(label), \(step): sync() threw \(error), not the injected \(injectedNow)")
                    if try hasFailed(store) {
                        try reopen("\(step), after a failed sync")
                        return
                    }
                    try checkVersions("\(step), after a failed sync")
                    // The unsealed record went back: a power loss now opens at the durable base.
                    try checkCopy(of: path, in: dir, expected: durable, label: "\(label), \(step): after the failed sync")
                }
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
                    current = State(version: version, contents: working)
                    if durability == .durable {
                        durable = current
                        reportedDurable = max(reportedDurable, version)
                    }
                    try checkVersions("round \(round), \(durability) commit")
                case let .failure(error):
                    outcome.failedCommits += 1
                    #expect(injectedNow.contains(error), "\(label), round \(round): \(durability) commit threw \(error), not the injected \(injectedNow)")
                    if try hasFailed(store) {
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
                            try checkCopy(of: path, in: dir, expected: durable, label: "\(label), round \(round): after the failed durable commit")
                        }
                    } else {
                        try checkVersions("round \(round), after a failed \(durability) commit")
                    }
                }
                if syncAfter { try sync("round \(round), sync") }
            }
            pinned?.snapshot.close()
            pinned = nil
            // The end: sync, close, reopen without faults.
            try sync("the final sync")
            tally()
            store.close()
            let reopened = try Store.open(path, options: .pageCommits)
            defer { reopened.close() }
            let inspection = try StoreInspection.inspect(reopened)
            #expect(inspection.problems.isEmpty, "\(label): reopened: \(inspection.problems.prefix(8))")
            #expect(inspection.version == durable.version, "\(label): reopened at v\(inspection.version), not v\(durable.version)")
            #expect(inspection.version >= reportedDurable, "\(label): reopened at v\(inspection.version), but v\(reportedDurable) was reported durable")
            #expect(LedgerModel.same(inspection.contents, durable.contents),
                    "\(label): reopened: \(StoreInspection.difference(inspection.contents, durable.contents))")
            if !(fault?.sticky ?? false) {
                // A fault that fired once leaves nothing pending after the final sync.
                #expect(durable.version == current.version, "\(label): the final sync left v\(durable.version) durable, not v\(current.version)")
            }
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
        let dry = try Self.run(fault: nil, in: dir, name: "dry.firn")
        #expect(dry.injected == 0 && dry.failedCommits == 0 && dry.failedSyncs == 0)
        // The workload is deterministic, so call k of one run is call k of the next.
        let again = try Self.run(fault: nil, in: dir, name: "dry-again.firn")
        #expect(again.count(kind) == dry.count(kind), "the workload made \(dry.count(kind)) and then \(again.count(kind)) \(kind) calls")
        let calls = dry.count(kind)
        #expect(calls > 0, "the workload makes no \(kind) calls")
        var injected = 0, failedCommits = 0, failedSyncs = 0, recovered = 0, reopened = 0, runs = 0
        for index in 1...max(calls, 1) {
            // Each call fails once with one error, and from then on with the other.
            let once = FaultyIO.Fault(kind: kind, index: index, code: index % 2 == 0 ? .enospc : .eio)
            let sticky = FaultyIO.Fault(kind: kind, index: index, code: index % 2 == 0 ? .eio : .enospc, sticky: true)
            for fault in [once, sticky] {
                let outcome = try Self.run(fault: fault, in: dir, name: "\(kind)-\(index)-\(fault.sticky).firn")
                #expect(outcome.injected > 0, "fault \(fault) never fired")
                #expect(outcome.failedCommits + outcome.failedSyncs > 0, "fault \(fault) failed no commit and no sync")
                injected += outcome.injected
                failedCommits += outcome.failedCommits
                failedSyncs += outcome.failedSyncs
                recovered += outcome.recoveredSyncs
                reopened += outcome.reopenedAfterFailure
                runs += 1
            }
        }
        let elapsed = ContinuousClock.now - started
        print("GroupedIOFaultTests [\(kind)]: \(calls) \(kind) calls in the workload; \(runs) runs, \(injected) injected faults, "
              + "\(failedCommits) failed commits, \(failedSyncs) failed syncs (\(recovered) retried successfully), "
              + "\(reopened) reopens after the store gave up; \(elapsed)")
    }
}
