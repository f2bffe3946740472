import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// I/O errors while committing through the commit log (FORMAT.md 8.2), as
/// `GroupedIOFaultTests` does for the default commit. A fixed ledger
/// workload on a 6-page region (`plan`) crosses four checkpoints: durable
/// frames and deferred ones packed into shared pages, `sync()` seals, a
/// durable frame on a pending group, a deferred commit that checkpoints
/// because the region is full, and large transactions (deferred and
/// durable) that checkpoint; a snapshot stays pinned across checkpoints.
/// (A `sync()` never checkpoints for want of room: a deferred frame leaves
/// room for its seal. After a failed deferred frame, a `sync()` may
/// checkpoint: the frame lies past the published version.) Some frames hold less than half a page
/// and some more: `FaultyIO` writes the first half of a failing write, which
/// leaves the former whole in the file and the latter torn. The workload
/// runs once to count its writes, syncs and extends, then once for every one
/// of them failing (EIO or ENOSPC, once or from then on).
///
/// Expected, and checked after every step:
/// - a failed commit (frame or checkpoint, durable or deferred) throws the
///   injected error and leaves the current version and its contents as they
///   were; a copy of the file as the page cache holds it, opened as a first
///   opener would after a power loss, opens at the last durable version
///   (never at the failed commit: a durable frame whose write or sync failed
///   is gone from the region); the next commit works, and the version it
///   makes reads back whole, in this store and in such a copy (a frame
///   appended where a failed one was must not be shadowed by its bytes, nor
///   chained after it);
/// - a failed `sync()` throws the injected error, keeps `durableVersion`
///   where it was and the copy opening at the old durable version; the retry
///   succeeds (for a fault that fires once) and the copy then opens at the
///   whole group. A `sync()` that checkpoints returns the checkpoint's
///   version, one past the group's, with the same contents;
/// - `durableVersion` is always exactly the last version whose durability
///   point succeeded (a durable frame, a seal, any checkpoint: a deferred
///   commit that checkpoints is durable too), never one whose sync failed;
/// - under a sync fault that persists, every failed call leaves the store
///   refusing use (the undo of a frame, a seal or a checkpoint's record
///   syncs, and fails too);
/// - when the store gives up (an undo failed: "reopen"), a reopen without
///   faults finds the last durable version, never older than any durable
///   version reported before (under a write fault that persists, the
///   undo's failing write of zeros still stores its first half, which
///   blanks the failed frame's header);
/// - at the end (sync, close, reopen without faults) the last successful
///   commit is there, the Verifier clean, not older than any durable version
///   reported along the way, and the store takes deferred frames, a seal
///   and a durable frame (or checkpoints, where the failures left an end no
///   frame may follow) that read back and survive a further reopen.
///
/// How it can fail: a durable frame or seal whose write or sync failed and
/// that stayed in the region shows in the copies (a first opener takes the
/// frame the caller was told failed, or a group whose `sync()` failed) and
/// in the reopen after the store gave up; a `sync()` that published the
/// durable version before its seal was synced (or despite a failure) shows
/// in the `durableVersion` check; a frame chained after a failed deferred
/// one left in the region shows in the contents read after the next commit;
/// a store that carries on after an undo it could not sync, in the check
/// under a persistent sync fault; a checkpoint that overwrote a page a
/// pinned version or the durable one sees, in the Verifier and the pinned
/// snapshot's contents. An appender that moves past a failed frame, or
/// does not report an undo that failed, never shows through a store (it
/// makes a new appender per transaction): the second test checks the
/// appender itself.
///
/// Runtime: about 11 s in a debug build, the three kinds running side by
/// side (write faults are most of it: 77 writes, 154 runs; syncs 2 s,
/// extends under 1 s); each run is the 21 steps and a final sync on a new
/// file. The appender test takes milliseconds.
@Suite struct CommitLogIOFaultTests {
    typealias Contents = LedgerModel.Contents

    /// How much a commit changes: a ledger transfer (a frame of a few
    /// hundred bytes, whole after a half-written failure); a transfer and a
    /// 2,000-byte filler (a frame of more than half a page, torn by one); a
    /// transfer and ten fillers of up to 9,000 bytes (more than an eighth of
    /// the region: a checkpoint).
    enum Size: String { case small, overHalfPage, large }

    enum Step {
        case commit(CommitDurability, Size)
        case sync
    }

    static let regionPages: UInt32 = 6

    /// The workload, one call a step, as the dry run takes it (6 pages):
    /// step 0 checkpoints (the ledger has no region yet); 1–3 are two
    /// deferred frames sharing a page and their seal; 4–6 a durable frame, a
    /// deferred one and a durable one on it (the pending group's page); 7–12
    /// deferred frames of more than half a page fill the region until one
    /// no longer fits with room for a seal and checkpoints; 13 is deferred
    /// and large (a checkpoint); 14–15 a deferred frame and its seal; 16–18
    /// a durable frame, a deferred one and a seal; 19 is durable and large
    /// (a checkpoint); 20 a deferred frame, sealed by the final sync.
    static let plan: [Step] = [
        .commit(.durable, .small),
        .commit(.deferred, .small), .commit(.deferred, .overHalfPage), .sync,
        .commit(.durable, .small), .commit(.deferred, .small), .commit(.durable, .overHalfPage),
        .commit(.deferred, .overHalfPage), .commit(.deferred, .overHalfPage), .commit(.deferred, .overHalfPage),
        .commit(.deferred, .overHalfPage), .commit(.deferred, .overHalfPage), .commit(.deferred, .overHalfPage),
        .commit(.deferred, .large),
        .commit(.deferred, .small), .sync,
        .commit(.durable, .small), .commit(.deferred, .overHalfPage), .sync,
        .commit(.durable, .large),
        .commit(.deferred, .small),
    ]
    /// A snapshot is pinned from this step to `unpinStep`.
    static let pinStep = 4, unpinStep = 17

    struct Outcome: LedgerFaultOutcome {
        var writes = 0, syncs = 0, extends = 0
        var injected = 0
        var failedCommits = 0, failedSyncs = 0, recoveredSyncs = 0
        /// Writes of the deferred frames kept in memory that failed before a read-back.
        var failedFrameWrites = 0
        var reopenedAfterFailure = 0
        /// Successful calls by what they made.
        var durableFrames = 0, deferredFrames = 0, checkpoints = 0, largeCheckpoints = 0
        var seals = 0, checkpointingSyncs = 0
        /// First commits after a failure that were frames (the failed call
        /// left the region open to one).
        var framesAfterFailure = 0

    }

    static func options(fault: FaultyIO.Fault?, framesInMemory: Bool = true) -> StoreOptions {
        var options = StoreOptions()
        options.keepsDeferredFramesInMemory = framesInMemory
        options.durability = .full
        options.commitLogPages = regionPages
        // The plan walks the region to its end: no checkpoint for the entries logged.
        options.checkpointsOnEntryBudget = false
        options.wrapIO = { FaultyIO($0, fault: fault) }
        return options
    }

    /// Opens `path` with `options(fault:framesInMemory:)`, its kept writer
    /// byte not let go for idleness within the hour: deferred frames kept
    /// in memory are then written by the workload's own calls (a durable
    /// commit, a sync, a checkpoint, the explicit write before a
    /// read-back), never by the idle watch on another thread between them,
    /// where a fault would go unseen until the next call, nor because a
    /// debug build's commits came more than 2 ms apart (the calls must be
    /// the same in every run).
    static func open(_ path: String, fault: FaultyIO.Fault?, framesInMemory: Bool = true) throws -> Store {
        let store = try Store.open(path, options: options(fault: fault, framesInMemory: framesInMemory))
        store.group?.idleNanoseconds.store(3_600_000_000_000, ordering: .relaxed)
        return store
    }

    /// Runs the workload on a new file `name` in `dir` with `fault` installed.
    static func run(fault: FaultyIO.Fault?, in dir: TemporaryDirectory, name: String, framesInMemory: Bool) throws -> Outcome {
        try dir.withDatabase(name) { path in
            let run = try Run(fault: fault, path: path, dir: dir, framesInMemory: framesInMemory)
            try run.workload()
            return run.outcome
        }
    }

    /// One run of the workload and what the model expects of it.
    final class Run: LedgerFaultRun<Outcome> {
        /// A call failed and the store carried on: the next successful
        /// commit is read back in full.
        var recovering = false

        let framesInMemory: Bool

        init(fault: FaultyIO.Fault?, path: String, dir: TemporaryDirectory, framesInMemory: Bool) throws {
            self.framesInMemory = framesInMemory
            try super.init(fault: fault, path: path, dir: dir, seed: 0x10_6F_A0_17, outcome: Outcome()) { fault in
                try CommitLogIOFaultTests.open(path, fault: fault, framesInMemory: framesInMemory)
            }
        }

        /// True when `version` is the newest record's: a checkpoint, not a frame.
        func isCheckpoint(_ version: UInt64) throws -> Bool {
            let newest = try CommitSlots.read(store.io).newest
            return newest?.version == version && newest?.logRegion != nil
        }

        /// The store reads `current` back whole and verified, and a copy of
        /// the file opens at `durable`.
        func readBack(_ step: String) throws {
            // Deferred frames still in memory are written first (verify
            // reads the file), as a call of its own that a fault may fail.
            let injectedBefore = faulty.injected.count
            do {
                try store.writeUnwrittenFrames()
            } catch {
                let injectedNow = Array(faulty.injected.dropFirst(injectedBefore))
                #expect(injectedNow.contains(error), "\(label), \(step): writing the kept frames threw \(error), not the injected \(injectedNow)")
                #expect(try hasFailed(), "\(label), \(step): the store carries on though deferred commits it acknowledged could not be written")
                outcome.failedFrameWrites += 1
                try reopen("\(step), after the kept frames could not be written")
                return
            }
            let inspection = try StoreInspection.inspect(store)
            #expect(inspection.problems.isEmpty, "\(label), \(step): \(inspection.problems.prefix(5))")
            #expect(inspection.version == current.version && LedgerModel.same(inspection.contents, current.contents),
                    "\(label), \(step): reads v\(inspection.version), not v\(current.version): \(StoreInspection.difference(inspection.contents, current.contents))")
            if let held = pinned {
                #expect(try LedgerModel.same(StoreInspection.read(held.snapshot), held.state.contents),
                        "\(label), \(step): the snapshot pinned at v\(held.state.version) changed")
            }
            try checkCopy(expected: durable, label: "\(label), \(step)")
        }

        /// The store gave up: reopen it without faults (the disk recovered).
        /// A first opener takes the log's durable version: the file opens
        /// at the last durable version.
        override func reopen(_ step: String) throws {
            recovering = false
            try super.reopen(step)
        }

        /// Under a sync fault that persists, every failed call gives up:
        /// each sync that can fail (a durable frame's, a seal's, a
        /// checkpoint's) is undone by a write and a sync, which fails too.
        func expectGivenUpUnderPersistentSyncFault(_ gaveUp: Bool, _ step: String) {
            guard let fault, fault.kind == .sync, fault.sticky else { return }
            #expect(gaveUp, "\(label), \(step): the store carries on though the undo of the failed call could not be synced")
        }

        /// `sync()`, and once more if it fails; checks every outcome.
        override func sync(_ step: String) throws {
            try syncTwice(step) { version, wasPending in
                if wasPending, version == current.version + 1 {
                    // No seal fitted: the group was made durable by a
                    // checkpoint, a version of its own with the same contents.
                    let checkpoint = try isCheckpoint(version)
                    #expect(checkpoint, "\(label), \(step): sync() returned v\(version), past the group, but made no checkpoint")
                    current = LedgerVersion(version: version, contents: current.contents)
                    outcome.checkpointingSyncs += 1
                } else {
                    #expect(version == current.version, "\(label), \(step): sync() returned v\(version), not the latest v\(current.version)")
                    if wasPending { outcome.seals += 1 }
                }
            } failed: { gaveUp in
                expectGivenUpUnderPersistentSyncFault(gaveUp, step)
                if !gaveUp { recovering = true }
            }
        }

        /// Stages `size`'s changes in `txn` and in `contents`.
        func stage(_ txn: WriteTransaction, _ size: Size, _ contents: inout Contents) throws {
            switch size {
            case .small:
                try LedgerModel.stageTransfer(txn, &contents, &rng, fillers: 0, sizes: [])
            case .overHalfPage:
                try LedgerModel.stageTransfer(txn, &contents, &rng, fillers: 0, sizes: [])
                guard let filler = try txn.tree(LedgerModel.fillerTree) else { throw LedgerFailure("no filler tree") }
                let key = LedgerModel.fillerKey(rng.below(LedgerModel.fillerKeyCount))
                let value = LedgerModel.fillerValue(size: 2000, salt: UInt32(truncatingIfNeeded: rng.next()))
                try filler.put(key, value)
                contents[LedgerModel.fillerTree, default: [:]][key] = value
            case .large:
                try LedgerModel.stageTransfer(txn, &contents, &rng, fillers: 10, sizes: [40, 2000, 3900, 9000])
            }
        }

        /// One commit of the plan; checks its outcome.
        func commit(_ step: String, _ durability: CommitDurability, _ size: Size) throws {
            let before = current
            let injectedBefore = faulty.injected.count
            var working = current.contents
            let txn = try store.beginWriteBlocking()
            let result: Result<UInt64, FirnError>
            do {
                try stage(txn, size, &working)
                result = .success(try txn.commit(durability: durability))
            } catch let error as FirnError {
                txn.abort()
                result = .failure(error)
            }
            let injectedNow = Array(faulty.injected.dropFirst(injectedBefore))
            switch result {
            case let .success(version):
                #expect(injectedNow.isEmpty, "\(label), \(step): commit v\(version) returned though \(injectedNow) was injected into it")
                #expect(version == before.version + 1, "\(label), \(step): committed v\(version) on v\(before.version)")
                current = LedgerVersion(version: version, contents: working)
                // A checkpoint is always sealed and synced, a deferred one too.
                let checkpoint = try isCheckpoint(version)
                if checkpoint {
                    outcome.checkpoints += 1
                    if size == .large { outcome.largeCheckpoints += 1 }
                } else if durability == .durable {
                    outcome.durableFrames += 1
                } else {
                    outcome.deferredFrames += 1
                }
                if durability == .durable || checkpoint {
                    durable = current
                    reportedDurable = max(reportedDurable, version)
                }
                try checkVersions(step)
                if recovering {
                    // The first commit after a failure: whatever the failed
                    // call left in the region must not hide or taint it.
                    recovering = false
                    if !checkpoint { outcome.framesAfterFailure += 1 }
                    try readBack("\(step), the first commit after a failure")
                }
            case let .failure(error):
                outcome.failedCommits += 1
                #expect(injectedNow.contains(error), "\(label), \(step): commit threw \(error), not the injected \(injectedNow)")
                let gaveUp = try hasFailed()
                expectGivenUpUnderPersistentSyncFault(gaveUp, step)
                if gaveUp {
                    try reopen("\(step), after the failed commit")
                    return
                }
                try checkVersions("\(step), after the failed commit")
                // A persistent fault fails every later commit the same way:
                // the first few are inspected in full.
                if outcome.failedCommits <= 3 { try readBack("\(step), after the failed commit") }
                recovering = true
            }
        }

        func workload() throws {
            for (index, step) in CommitLogIOFaultTests.plan.enumerated() {
                if index == CommitLogIOFaultTests.pinStep {
                    pinned = (try store.snapshot(label: "pinned across checkpoints and faults"), current)
                }
                if index == CommitLogIOFaultTests.unpinStep, let held = pinned {
                    #expect(try LedgerModel.same(StoreInspection.read(held.snapshot), held.state.contents),
                            "\(label): the snapshot pinned at v\(held.state.version) changed")
                    held.snapshot.close()
                    pinned = nil
                }
                try checkVersions("step \(index)")
                switch step {
                case let .commit(durability, size): try commit("step \(index) (\(durability) \(size.rawValue) commit)", durability, size)
                case .sync: try sync("step \(index) (sync)")
                }
            }
            // The end: sync, close, reopen without faults.
            var reopened = try finish { _ in try open(nil) }
            defer { reopened.close() }
            // The reopened store takes frames (or a checkpoint, when the
            // failures left an end no frame may follow), a seal and a
            // durable commit; a first opener then finds the last of them.
            var contents = durable.contents
            for durability in [CommitDurability.deferred, .deferred] {
                let txn = try reopened.beginWriteBlocking()
                try LedgerModel.stageTransfer(txn, &contents, &rng, fillers: 0, sizes: [])
                try txn.commit(durability: durability)
            }
            _ = try reopened.sync()
            let txn = try reopened.beginWriteBlocking()
            try LedgerModel.stageTransfer(txn, &contents, &rng, fillers: 1, sizes: [40])
            let last = try txn.commit()
            let after = try StoreInspection.inspect(reopened)
            #expect(after.problems.isEmpty && after.version == last && LedgerModel.same(after.contents, contents),
                    "\(label): commits after the reopen: v\(after.version), \(after.problems.prefix(5)) \(StoreInspection.difference(after.contents, contents))")
            reopened.close()
            reopened = try Store.open(path, options: .pageCommits)
            let again = try StoreInspection.inspect(reopened)
            #expect(again.problems.isEmpty && again.version == last && LedgerModel.same(again.contents, contents),
                    "\(label): reopened after the last commits: v\(again.version), not v\(last)")
        }
    }

    /// `framesInMemory`: deferred frames kept in memory until a durability
    /// point (the default, FORMAT.md 8.1), or each written at once (as with
    /// `.none`, and as the store falls back to when its chain did not take
    /// a frame).
    @Test(arguments: FaultyIO.Kind.allCases, [true, false])
    func everyFailingCallOnTheLogKeepsTheLastCommitAndTheDurableVersionTruthful(kind: FaultyIO.Kind, framesInMemory: Bool) throws {
        let started = ContinuousClock.now
        let dir = try TemporaryDirectory(prefix: "firn-log-fault-\(kind)", inMemory: true)
        let sweep = try FaultSweep.sweep(kind) {
            try Self.run(fault: $0, in: dir, name: $1, framesInMemory: framesInMemory)
        }
        let dry = sweep.dry
        #expect(dry.injected == 0 && dry.failedCommits == 0 && dry.failedSyncs == 0)
        // The workload makes what the plan says it does.
        let made = "\(dry.checkpoints) checkpoints (\(dry.largeCheckpoints) large), \(dry.checkpointingSyncs) checkpointing syncs, "
            + "\(dry.seals) seals, \(dry.durableFrames) durable and \(dry.deferredFrames) deferred frames"
        #expect(dry.checkpoints == 4 && dry.largeCheckpoints == 2 && dry.checkpointingSyncs == 0 && dry.seals == 4
                && dry.durableFrames >= 2 && dry.deferredFrames >= 10, "the dry run made \(made)")
        for (fault, outcome) in sweep.runs {
            #expect(outcome.failedCommits + outcome.failedSyncs + outcome.failedFrameWrites > 0,
                    "fault \(fault) failed no commit, no sync and no write of kept frames")
        }
        let framesAfterFailure = sweep.total(\.framesAfterFailure)
        if kind != .extend {
            // A failed frame or seal whose pages went back to zeros: the
            // next frame went where it was, and read back.
            #expect(framesAfterFailure > 0, "no frame was appended after a failed \(kind)")
        }
        let elapsed = ContinuousClock.now - started
        print("CommitLogIOFaultTests [\(kind), frames \(framesInMemory ? "in memory" : "written at once")]: \(dry.count(kind)) \(kind) calls in the workload (\(dry.checkpoints) checkpoints, "
              + "\(dry.durableFrames + dry.deferredFrames) frames, \(dry.seals) seals, \(dry.checkpointingSyncs) checkpointing syncs); "
              + "\(sweep.runs.count) runs, \(sweep.total(\.injected)) injected faults, \(sweep.total(\.failedCommits)) failed commits, "
              + "\(sweep.total(\.failedSyncs)) failed syncs (\(sweep.total(\.recoveredSyncs)) retried successfully), "
              + "\(framesAfterFailure) frames as the first commit after a failure, "
              + "\(sweep.total(\.reopenedAfterFailure)) reopens after the store gave up; \(elapsed)")
    }

    // MARK: the appender alone

    enum AppenderCall: String, CaseIterable, Sendable { case durableCommit, deferredCommit, seal }

    /// What the store relies on from `LogAppender` when a frame fails,
    /// checked on the appender itself (`FaultyIO` over `MemoryIO`), since a
    /// store makes a new appender per transaction and never shows a failed
    /// one's state: after a failed write or sync, once or persistent, of a
    /// frame smaller or larger than half a page, the appender is where it
    /// was (page, chain, versions); a frame that is not deferred is gone
    /// from the region (the scan ends where it began, and a fault that
    /// persists into the undo is reported through `undoFailed`, never one
    /// that does not); and after a fault that fired once the same appender
    /// puts the next frame where the failed one was, with zeros after it
    /// (the failed frame was larger, and a deferred one may have left part
    /// of its bytes), and the region scans to exactly the frames that
    /// succeeded.
    @Test(arguments: AppenderCall.allCases)
    func aFailedFrameLeavesTheAppenderWhereItWasAndIsUndoneUnlessDeferred(call: AppenderCall) throws {
        let geometry = PageGeometry(pageSize: 4096)
        let region = LogRegion(startPage: 0, pageCount: 8, epoch: 40, seed: 0xC0FF_EE00)
        func payload(_ byte: UInt8, bytes: Int) -> [UInt8] {
            Payloads.encode([.put(tree: "t", key: [byte], value: [UInt8](repeating: byte, count: bytes))])
        }
        func scan(_ memory: MemoryIO) -> LogScan {
            var bytes = memory.bytes
            bytes += [UInt8](repeating: 0, count: max(0, Int(region.pageCount) * 4096 - bytes.count))
            return bytes.withUnsafeBytes { LogScan.scan(region, bytes: $0, geometry: geometry) }
        }
        func attempt(_ appender: LogAppender, _ payload: [UInt8], undoFailed: (FirnError) -> Void) throws(FirnError) {
            switch call {
            case .durableCommit:
                try appender.appendCommit(payload: payload, deferred: false, timestampNanoseconds: 3, undoFailed: undoFailed)
            case .deferredCommit:
                try appender.appendCommit(payload: payload, deferred: true, timestampNanoseconds: 3, undoFailed: undoFailed)
            case .seal:
                try appender.seal(timestampNanoseconds: 3, undoFailed: undoFailed)
            }
        }
        // Before the call: a durable commit (one write, one sync) and, for
        // a seal, a deferred commit to seal (one more write).
        let writesBefore = call == .seal ? 2 : 1, syncsBefore = 1
        let kinds: [FaultyIO.Kind] = call == .deferredCommit ? [.write] : [.write, .sync]
        for kind in kinds {
            for size in [40, 3000] {
                for sticky in [false, true] {
                    let fault = FaultyIO.Fault(kind: kind, index: (kind == .write ? writesBefore : syncsBefore) + 1, code: .eio, sticky: sticky)
                    let label = "\(call.rawValue), \(size)-byte payload, fault \(fault)"
                    let memory = MemoryIO()
                    let faulty = FaultyIO(memory, fault: fault)
                    let appender = LogAppender.fresh(io: faulty, region: region, geometry: geometry)
                    try appender.appendCommit(payload: payload(1, bytes: 40), deferred: false, timestampNanoseconds: 1)
                    if call == .seal { try appender.appendCommit(payload: payload(2, bytes: 40), deferred: true, timestampNanoseconds: 2) }
                    let offset = appender.nextOffset, chain = appender.chain
                    let newest = appender.newestVersion, durable = appender.durableVersion
                    let framesBefore = scan(memory).frames

                    var undoFailures: [FirnError] = []
                    var failure: FirnError? = nil
                    do { try attempt(appender, payload(3, bytes: size)) { undoFailures.append($0) } } catch { failure = error }
                    #expect(failure != nil && failure == faulty.injected.first, "\(label): threw \(String(describing: failure))")
                    #expect(appender.nextOffset == offset && appender.chain == chain, "\(label): the appender moved past the failed frame")
                    #expect(appender.newestVersion == newest && appender.durableVersion == durable,
                            "\(label): the appender took the failed frame's versions")
                    let after = scan(memory)
                    if call == .deferredCommit {
                        #expect(Array(after.frames.prefix(framesBefore.count)) == framesBefore, "\(label): frames before the failed one changed")
                        #expect(undoFailures.isEmpty, "\(label): a deferred frame reported an undo")
                    } else {
                        #expect(after.frames == framesBefore && after.newestVersion == newest && after.durableVersion == durable,
                                "\(label): the failed frame is still in the region: \(after.frames.map(\.header.version)), durable \(after.durableVersion)")
                        #expect(after.end == .blank(offset: offset) || sticky && after.end.allowsAppend,
                                "\(label): the region ends \(after.end) where the failed frame was")
                        #expect(undoFailures.count == (sticky ? 1 : 0), "\(label): \(undoFailures.count) undo failures reported")
                    }
                    guard !sticky else { continue }

                    // The fault is spent: the same appender goes on where it was,
                    // with a frame smaller than the failed one, and zeros after it
                    // where a failed deferred write left part of its bytes.
                    try attempt(appender, payload(4, bytes: 40)) { undoFailures.append($0) }
                    let final = scan(memory)
                    #expect(final.frames.dropLast() == framesBefore[...] && final.frames.last?.offset == offset,
                            "\(label): after the retry the region holds frames \(final.frames.map { ($0.offset, $0.header.version) })")
                    #expect(final.end == .blank(offset: appender.nextOffset),
                            "\(label): after the retry the region ends \(final.end), not blank at \(appender.nextOffset)")
                    #expect(final.newestVersion == appender.newestVersion && final.durableVersion == appender.durableVersion,
                            "\(label): the region scans to v\(final.newestVersion) (durable v\(final.durableVersion)), the appender says v\(appender.newestVersion) (v\(appender.durableVersion))")
                    if call != .seal {
                        #expect(final.frames.last?.header.payloadChecksum == CRC32C.checksum(payload(4, bytes: 40)),
                                "\(label): the last frame is not the retried commit")
                    }
                }
            }
        }
    }
}
