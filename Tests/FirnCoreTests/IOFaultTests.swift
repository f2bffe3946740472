import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// I/O errors: a fixed ledger workload runs once to count its writes, syncs
/// and extends, then once for every one of them failing (EIO or ENOSPC,
/// once or from then on). The failing commit must throw the injected error,
/// leave the store at its previous version (snapshots read the previous
/// contents), and later commits must work — in the same store, or after a
/// reopen when the store declared itself failed. At the end a reopen without
/// faults finds the last successful commit, verified clean.
///
/// How it can fail: a commit that swallowed the error would return with an
/// injected fault recorded against it; a commit whose record write or sync
/// failed but whose slot were not restored would leave the new record in the
/// file, and the reopen would find a version the caller was told failed; a
/// failed commit that had freed or overwritten a page of the current or the
/// pinned version would show in the Verifier or in the contents.
@Suite struct IOFaultTests {
    struct Outcome: FaultRunOutcome {
        var writes = 0, syncs = 0, extends = 0
        var injected = 0
        /// Faults that fired while opening (the first opener's sync).
        var injectedAtOpen = 0
        var failedCommits = 0
        var reopenedAfterFailure = 0
    }

    static let rounds = 14

    /// Runs the workload on a new file `name` in `dir` with `fault` installed.
    static func run(fault: FaultyIO.Fault?, in dir: TemporaryDirectory, name: String) throws -> Outcome {
        try dir.withDatabase(name) { path in try run(fault: fault, path: path) }
    }

    static func run(fault: FaultyIO.Fault?, path: String) throws -> Outcome {
        let label = fault.map { "fault \($0)" } ?? "dry run"
        var (expectedVersion, model) = try LedgerModel.createStore(at: path)
        var options = StoreOptions.pageCommits
        options.durability = .full
        options.wrapIO = { FaultyIO($0, fault: fault) }
        var store = try Store.open(path, options: options)
        var faulty = try #require(store.io as? FaultyIO)
        var outcome = Outcome()
        // The first opener syncs before it claims its version durable; when
        // that sync fails the open still succeeds, claiming nothing.
        outcome.injectedAtOpen = faulty.injected.count
        if outcome.injectedAtOpen > 0 {
            #expect(try store.durableVersion == 0, "\(label): the open claimed a version durable though its sync failed")
        } else {
            #expect(try store.durableVersion == expectedVersion, "\(label): the open did not claim its version durable")
        }
        var rng = SeededGenerator(seed: 0x10_FA_17)
        var pinned: (snapshot: Snapshot, contents: LedgerModel.Contents)? = nil
        for round in 0..<rounds {
            if round == 4 { pinned = (try store.snapshot(label: "pinned across faults"), model) }
            if round == 10, let held = pinned {
                #expect(try LedgerModel.same(StoreInspection.read(held.snapshot), held.contents), "\(label): the pinned snapshot changed")
                held.snapshot.close()
                pinned = nil
            }
            let before = try store.currentVersion
            #expect(before == expectedVersion, "\(label), round \(round): the store is at v\(before), not v\(expectedVersion)")
            let injectedBefore = faulty.injected.count
            var working = model
            let txn = try store.beginWriteBlocking()
            // Values too large for a leaf are written to overflow pages when put,
            // so a fault can surface from a put as well as from the commit.
            let committed: Result<UInt64, FirnError>
            do {
                try LedgerModel.stageRandomChanges(txn, &working, &rng)
                if round % 5 == 2 {
                    // Bigger commits grow the file.
                    for _ in 0..<10 { try LedgerModel.stageRandomChanges(txn, &working, &rng) }
                }
                committed = .success(try txn.commit())
            } catch let error as FirnError {
                txn.abort()
                committed = .failure(error)
            }
            let injectedNow = Array(faulty.injected.dropFirst(injectedBefore))
            switch committed {
            case let .success(version):
                #expect(injectedNow.isEmpty, "\(label), round \(round): commit v\(version) returned though \(injectedNow) was injected into it")
                #expect(version == before + 1)
                model = working
                expectedVersion = version
            case let .failure(error):
                outcome.failedCommits += 1
                #expect(injectedNow.contains(error), "\(label), round \(round): commit threw \(error), not the injected \(injectedNow)")
                #expect(try store.currentVersion == before, "\(label), round \(round): the failed commit moved the version")
                var storeFailed = false
                do {
                    let inspection = try StoreInspection.inspect(store)

                    #expect(inspection.problems.isEmpty, "\(label), round \(round): after the failure: \(inspection.problems.prefix(5))")
                    #expect(inspection.version == before)
                    #expect(LedgerModel.same(inspection.contents, model),
                            "\(label), round \(round): after the failure: \(StoreInspection.difference(inspection.contents, model))")
                    if let held = pinned {
                        #expect(try LedgerModel.same(StoreInspection.read(held.snapshot), held.contents), "\(label): the pinned snapshot changed")
                    }
                } catch let error as FirnError {
                    guard case let .misuse(message) = error, message.contains("reopen") else { throw error }
                    storeFailed = true
                }
                if storeFailed {
                    // The store gave up: reopen it (the disk has recovered) and carry on.
                    outcome.reopenedAfterFailure += 1
                    pinned?.snapshot.close()
                    pinned = nil
                    outcome.tally(faulty)
                    store.close()
                    options.wrapIO = { FaultyIO($0, fault: nil) }
                    store = try Store.open(path, options: options)
                    faulty = try #require(store.io as? FaultyIO)
                    let inspection = try StoreInspection.inspect(store)
                    #expect(inspection.problems.isEmpty, "\(label), round \(round): reopened: \(inspection.problems.prefix(5))")
                    #expect(inspection.version == before && LedgerModel.same(inspection.contents, model),
                            "\(label), round \(round): reopened at v\(inspection.version), not v\(before) as committed")
                }
            }
        }
        pinned?.snapshot.close()
        outcome.tally(faulty)
        store.close()
        // Reopen without faults: the last successful commit, verified clean, and still writable.
        let reopened = try Store.open(path, options: .pageCommits)
        defer { reopened.close() }
        let inspection = try StoreInspection.inspect(reopened)
        #expect(inspection.problems.isEmpty, "\(label): reopened: \(inspection.problems.prefix(8))")
        #expect(inspection.version == expectedVersion, "\(label): reopened at v\(inspection.version), not v\(expectedVersion)")
        #expect(LedgerModel.same(inspection.contents, model), "\(label): reopened: \(StoreInspection.difference(inspection.contents, model))")
        let txn = try reopened.beginWriteBlocking()
        try LedgerModel.stageRandomChanges(txn, &model, &rng)
        let version = try txn.commit()
        let after = try StoreInspection.inspect(reopened)
        #expect(after.problems.isEmpty && after.version == version && LedgerModel.same(after.contents, model),
                "\(label): a commit after the reopen: \(after.problems.prefix(5))")
        return outcome
    }

    @Test(arguments: FaultyIO.Kind.allCases)
    func everyFailingCallLeavesTheStoreAtItsLastCommit(kind: FaultyIO.Kind) throws {
        let started = ContinuousClock.now
        let dir = try TemporaryDirectory(prefix: "firn-fault-\(kind)", inMemory: true)
        let sweep = try FaultSweep.sweep(kind) { try Self.run(fault: $0, in: dir, name: $1) }
        #expect(sweep.dry.injected == 0 && sweep.dry.failedCommits == 0)
        for (fault, outcome) in sweep.runs {
            // Only a one-off failure of the open's sync fails no commit.
            #expect(outcome.failedCommits > 0 || (outcome.injectedAtOpen > 0 && !fault.sticky),
                    "fault \(fault) failed no commit")
        }
        let elapsed = ContinuousClock.now - started
        print("IOFaultTests [\(kind)]: \(sweep.dry.count(kind)) \(kind) calls in the workload; \(sweep.runs.count) runs, "
              + "\(sweep.total(\.injected)) injected faults, \(sweep.total(\.failedCommits)) failed commits, "
              + "\(sweep.total(\.reopenedAfterFailure)) reopens after the store gave up; \(elapsed)")
    }
}
