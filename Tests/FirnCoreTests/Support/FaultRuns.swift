import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

// What the I/O-fault suites share (`IOFaultTests`, `GroupedIOFaultTests`,
// `CommitLogIOFaultTests`): a deterministic ledger workload runs once to
// count its writes, syncs and extends, then once for every one of them
// failing (EIO or ENOSPC, once or from then on).

/// What one run of a fault suite's workload counted.
protocol FaultRunOutcome {
    var writes: Int { get set }
    var syncs: Int { get set }
    var extends: Int { get set }
    /// Faults injected.
    var injected: Int { get set }
}

extension FaultRunOutcome {
    func count(_ kind: FaultyIO.Kind) -> Int {
        switch kind {
        case .write: return writes
        case .sync: return syncs
        case .extend: return extends
        }
    }

    /// Adds the calls of a store's `FaultyIO` (once, before it is closed).
    mutating func tally(_ io: FaultyIO) {
        writes += io.count(.write)
        syncs += io.count(.sync)
        extends += io.count(.extend)
        injected += io.injected.count
    }
}

enum FaultSweep {
    /// Runs the workload (`run(fault, name of a new file)`) without a fault,
    /// twice: the second run must make as many calls of `kind` as the first
    /// (call k of one run is then call k of the next), and at least one.
    /// Then once for each call of `kind` failing once with one error, and
    /// once from then on with the other; each fault must fire. The dry run,
    /// and each fault with its run.
    static func sweep<Outcome: FaultRunOutcome>(
        _ kind: FaultyIO.Kind, _ run: (FaultyIO.Fault?, String) throws -> Outcome
    ) throws -> FaultSweepResult<Outcome> {
        let dry = try run(nil, "dry.firn")
        let again = try run(nil, "dry-again.firn")
        #expect(again.count(kind) == dry.count(kind), "the workload made \(dry.count(kind)) and then \(again.count(kind)) \(kind) calls")
        let calls = dry.count(kind)
        #expect(calls > 0, "the workload makes no \(kind) calls")
        var runs: [(FaultyIO.Fault, Outcome)] = []
        for index in 1...max(calls, 1) {
            let once = FaultyIO.Fault(kind: kind, index: index, code: index % 2 == 0 ? .enospc : .eio)
            let sticky = FaultyIO.Fault(kind: kind, index: index, code: index % 2 == 0 ? .eio : .enospc, sticky: true)
            for fault in [once, sticky] {
                let outcome = try run(fault, "\(kind)-\(index)-\(fault.sticky).firn")
                #expect(outcome.injected > 0, "fault \(fault) never fired")
                runs.append((fault, outcome))
            }
        }
        return FaultSweepResult(dry: dry, runs: runs)
    }
}

struct FaultSweepResult<Outcome> {
    /// The run without a fault.
    let dry: Outcome
    /// Each fault with its run.
    let runs: [(fault: FaultyIO.Fault, outcome: Outcome)]

    /// `field` summed over the runs with a fault.
    func total(_ field: KeyPath<Outcome, Int>) -> Int {
        runs.reduce(0) { $0 + $1.outcome[keyPath: field] }
    }
}

/// A version and its contents.
struct LedgerVersion {
    var version: UInt64
    var contents: LedgerModel.Contents
}

/// One run of a ledger workload with `fault` installed, and what the model
/// expects of it: the state and checks that `GroupedIOFaultTests.Run` and
/// `CommitLogIOFaultTests.Run` share. A subclass makes the workload's
/// calls, and its `sync`.
class LedgerFaultRun<Outcome: LedgerFaultOutcome> {
    let fault: FaultyIO.Fault?
    let path: String
    let dir: TemporaryDirectory
    let label: String
    /// Opens the file with a fault installed (nil: none).
    let open: (FaultyIO.Fault?) throws -> Store
    var store: Store
    var faulty: FaultyIO
    var outcome: Outcome
    /// The latest version, and the last version a durability point made durable.
    var current: LedgerVersion
    var durable: LedgerVersion
    /// The highest durable version ever reported (durableVersion, sync()).
    var reportedDurable: UInt64
    var rng: SeededGenerator
    var pinned: (snapshot: Snapshot, state: LedgerVersion)? = nil

    /// Makes the ledger at `path` and opens it with `open(fault)`. A first
    /// opener syncs before it claims its version durable (IOFaultTests
    /// covers a fault there): the file is opened once without faults
    /// first, so the faulty store's calls are the workload's own.
    init(fault: FaultyIO.Fault?, path: String, dir: TemporaryDirectory, seed: UInt64, outcome: Outcome,
         open: @escaping (FaultyIO.Fault?) throws -> Store) throws {
        self.fault = fault
        self.path = path
        self.dir = dir
        self.open = open
        self.outcome = outcome
        label = fault.map { "fault \($0)" } ?? "dry run"
        rng = SeededGenerator(seed: seed)
        let (createdVersion, createdContents) = try LedgerModel.createStore(at: path)
        current = LedgerVersion(version: createdVersion, contents: createdContents)
        durable = current
        let first = try Store.open(path, options: .pageCommits)
        defer { first.close() }
        store = try open(fault)
        faulty = try #require(store.io as? FaultyIO)
        reportedDurable = try store.durableVersion
        #expect(reportedDurable == durable.version)
    }

    /// `sync()`, and once more if it fails; checks every outcome (`syncTwice`).
    func sync(_ step: String) throws {
        preconditionFailure("a fault run's workload syncs its own way")
    }

    /// `sync()`, and once more if it fails; checks every outcome. A sync
    /// that returns had nothing injected into it, and `succeeded(version,
    /// wasPending)` checks the version (and makes it `current`); the
    /// whole group is then durable, and after a retry a power loss keeps
    /// it. A sync that fails throws the injected error; `failed(gaveUp)`
    /// learns whether the store gave up (it is then reopened); else the
    /// versions are as they were and a power loss opens at the durable base.
    func syncTwice(_ step: String, succeeded: (UInt64, Bool) throws -> Void, failed: (Bool) -> Void = { _ in }) throws {
        for attempt in 0..<2 {
            let injectedBefore = faulty.injected.count
            let wasPending = durable.version < current.version
            let result: Result<UInt64, FirnError>
            do { result = .success(try store.sync()) } catch { result = .failure(error) }
            let injectedNow = Array(faulty.injected.dropFirst(injectedBefore))
            switch result {
            case let .success(version):
                #expect(injectedNow.isEmpty, "\(label), \(step): sync() returned v\(version) though \(injectedNow) was injected into it")
                try succeeded(version, wasPending)
                reportedDurable = max(reportedDurable, version)
                durable = current
                try checkVersions(step)
                if attempt > 0 {
                    outcome.recoveredSyncs += 1
                    // The retry made the whole group durable: a power loss now keeps it.
                    if wasPending { try checkCopy(expected: current, label: "\(label), \(step): after the retried sync") }
                }
                return
            case let .failure(error):
                outcome.failedSyncs += 1
                #expect(injectedNow.contains(error), "\(label), \(step): sync() threw \(error), not the injected \(injectedNow)")
                let gaveUp = try hasFailed()
                failed(gaveUp)
                if gaveUp {
                    try reopen("\(step), after a failed sync")
                    return
                }
                try checkVersions("\(step), after a failed sync")
                // What the sync wrote went back (the sealed record, or a
                // checkpoint's): a power loss now opens at the durable base.
                try checkCopy(expected: durable, label: "\(label), \(step): after the failed sync")
            }
        }
    }

    func tally() { outcome.tally(faulty) }

    /// The store's versions are what the model says.
    func checkVersions(_ step: String) throws {
        let latest = try store.currentVersion, reported = try store.durableVersion
        #expect(latest == current.version, "\(label), \(step): the store is at v\(latest), not v\(current.version)")
        #expect(reported == durable.version,
                "\(label), \(step): durableVersion is v\(reported), but the last successful durability point made v\(durable.version) durable")
        reportedDurable = max(reportedDurable, reported)
    }

    /// True when `store` refuses use until reopened (a restore or an undo failed).
    func hasFailed() throws -> Bool {
        do {
            let snapshot = try store.snapshot(label: "failed?")
            snapshot.close()
            return false
        } catch {
            guard case let .misuse(message) = error, message.contains("reopen") else { throw error }
            return true
        }
    }

    /// The store gave up: reopen it without faults (the disk recovered).
    /// A first opener rejects what was not made durable: the file opens at
    /// the last durable version.
    func reopen(_ step: String) throws {
        outcome.reopenedAfterFailure += 1
        pinned?.snapshot.close()
        pinned = nil
        tally()
        store.close()
        store = try open(nil)
        faulty = try #require(store.io as? FaultyIO)
        let inspection = try StoreInspection.inspect(store)
        #expect(inspection.problems.isEmpty, "\(label), \(step): reopened: \(inspection.problems.prefix(5))")
        #expect(inspection.version == durable.version && LedgerModel.same(inspection.contents, durable.contents),
                "\(label), \(step): reopened at v\(inspection.version), not at the last durable v\(durable.version): \(StoreInspection.difference(inspection.contents, durable.contents))")
        #expect(inspection.version >= reportedDurable,
                "\(label), \(step): reopened at v\(inspection.version), but v\(reportedDurable) was reported durable")
        current = durable
        try checkVersions(step)
    }

    /// Opens a copy of the file as it is now (the page cache) as a first
    /// opener would after a power loss, and checks it is `expected`.
    func checkCopy(expected: LedgerVersion, label: @autoclosure () -> String) throws {
        let bytes = try PowerLoss.readFile(path)
        try dir.withDatabase("copy-\(UInt32.random(in: 0 ... .max)).firn", bytes: bytes) { copy in
            let store = try Store.open(copy, options: .pageCommits)
            defer { store.close() }
            let inspection = try StoreInspection.inspect(store)
            #expect(inspection.problems.isEmpty, "\(label()): the file's copy: \(inspection.problems.prefix(5))")
            #expect(inspection.version == expected.version && LedgerModel.same(inspection.contents, expected.contents),
                    "\(label()): the file's copy opens at v\(inspection.version), not v\(expected.version): \(StoreInspection.difference(inspection.contents, expected.contents))")
            #expect(try store.durableVersion == inspection.version)
        }
    }

    /// The end of the workload: the final sync, then the file reopened by
    /// `reopening` holds the last durable version, verified, not older than
    /// any version reported durable, and (after a fault that fired once)
    /// every commit. The reopened store.
    func finish(reopening: (String) throws -> Store) throws -> Store {
        pinned?.snapshot.close()
        pinned = nil
        try sync("the final sync")
        tally()
        store.close()
        let reopened = try reopening(path)
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
        return reopened
    }
}

/// What a `LedgerFaultRun` counts besides the calls.
protocol LedgerFaultOutcome: FaultRunOutcome {
    var failedSyncs: Int { get set }
    /// Syncs that succeeded when retried after a failure.
    var recoveredSyncs: Int { get set }
    /// Reopens after the store gave up.
    var reopenedAfterFailure: Int { get set }
}
