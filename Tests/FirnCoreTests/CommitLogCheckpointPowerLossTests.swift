import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Power loss while committing through the commit log, across checkpoints
/// (FORMAT.md 8.2; `CommitLogPowerLossTests` covers one region's frames, not
/// a region change). A ledger workload runs through a `Store` with a small
/// `commitLogPages` and its I/O recorded (`RecordingIO`): durable and
/// deferred commits, `sync()` (a seal frame, or a checkpoint when no seal
/// fits or the group carried the log past its entry budget), small transactions (frames) and large ones (checkpoints), a region
/// filling every few commits, a snapshot pinned across several checkpoints,
/// so the recording makes new regions, retires old ones and reuses them.
///
/// Crash images (`CrashImage`: durable through the last completed sync,
/// each later write kept, dropped or torn by sectors, each later extend kept
/// or not) are built for every durability window (the ops after a sync
/// through the next one, or through the recording's end): a crash after
/// each op with everything before it applied; at the crash just before the
/// window's sync, every combination of kept, dropped and torn when at most
/// 4 ops are in doubt, else each op alone dropped and alone torn plus 16
/// seeded samples (half applied in reverse order); and a crash right after
/// the sync, which must open at the durability point it made. Each image is
/// opened as a first opener and must:
/// - open without an error, the Verifier clean and the ledger's total intact;
/// - be at a version at least the last one acknowledged durable before the
///   crash (a call had returned with `durableVersion` at it), at a
///   durability point the writer made (never inside a group), and not past
///   the last call whose writes had begun;
/// - hold exactly that version's contents: every acknowledged commit's
///   changes, nothing of a later one.
/// Every eighth image also takes new commits on the log (frames, a seal,
/// a checkpoint when the crash left an end no frame may follow), which must
/// read back and survive a further reopen. Failing images are counted by
/// kind (open, verify, version, contents, after recovery); the first three
/// of each kind are reported in full.
@Suite struct CommitLogCheckpointPowerLossTests {
    typealias Contents = LedgerModel.Contents

    enum Kind: Equatable { case durableCommit, deferredCommit, sync }

    /// One call of the recorded workload.
    struct Call {
        var kind: Kind
        /// The version it returned.
        var version: UInt64
        /// `durableVersion` right after it returned.
        var durableAfter: UInt64
        /// Log indices of its first and last operation (first > last: it did no I/O).
        var firstIndex: Int
        var lastIndex: Int
        /// It made a checkpoint (a new record with a log region).
        var checkpoint: Bool
        /// A sync whose group carried the log past its entry budget: its
        /// durability point is a checkpoint though a seal would fit.
        var pastBudget = false
    }

    struct Recording {
        var base: [UInt8]
        var baseVersion: UInt64
        var log: [RecordingIO.Operation]
        var calls: [Call]
        var contents: [UInt64: Contents]
        var pages: UInt32

        /// The last version acknowledged durable by a crash right after op
        /// `crash`: the durable version after every call that had returned.
        func acknowledged(crash: Int) -> UInt64 {
            calls.filter { $0.lastIndex <= crash }.map(\.durableAfter).max().map { max($0, baseVersion) } ?? baseVersion
        }

        /// The versions a first opener may choose after a crash right after
        /// op `crash`: the base, or a durability point of a call whose
        /// writes had begun.
        func possible(crash: Int) -> Set<UInt64> {
            Set([baseVersion] + calls.filter { $0.firstIndex <= crash }.map(\.durableAfter))
        }
    }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["FIRN_CRASH_SEED"].flatMap { UInt64($0) } ?? 0x10_60_5E_ED
    }

    static func newestRecord(_ store: Store) throws -> CommitRecord? {
        try CommitSlots.read(store.io).newest
    }

    /// Records `steps` calls on a fresh ledger through a store with
    /// `commitLogPages` = `pages`.
    static func record(in dir: TemporaryDirectory, seed: UInt64, pages: UInt32, steps: Int) throws -> Recording {
        let path = dir.file("recorded.firn")
        let ledger = try RecordedLedger(path: path, options: StoreOptions.commitLog(pages: pages, create: false))
        let (store, recorder, baseVersion) = (ledger.store, ledger.recorder, ledger.baseVersion)
        defer { store.close() }
        var rng = SeededGenerator(seed: seed)
        var contents = ledger.baseContents
        var all: [UInt64: Contents] = [baseVersion: contents]
        var calls: [Call] = []
        var pinned: (Snapshot, UInt64)? = nil
        for step in 0..<steps {
            if step == 8 { pinned = (try store.snapshot(label: "pinned across checkpoints"), try store.currentVersion) }
            if step == 26, let (snapshot, version) = pinned {
                #expect(try LedgerModel.same(StoreInspection.read(snapshot), #require(all[version])),
                        "the snapshot pinned at v\(version) changed under later checkpoints")
                // Another store (a tool's process) reads the pinned version
                // too, through the epoch entry once its checkpoint has left
                // the slots (FORMAT.md 7): the crash images below are taken
                // with that entry and the region it keeps in the file.
                let other = try Store.open(path, options: StoreOptions.commitLog(pages: pages, create: false))
                let seen = try other.snapshot(version: version, label: "another process")
                #expect(try LedgerModel.same(StoreInspection.read(seen), #require(all[version])),
                        "another store reads v\(version) differently")
                seen.close()
                other.close()
                snapshot.close()
                pinned = nil
            }
            let first = recorder.count
            let newestBefore = try Self.newestRecord(store)
            let kind: Kind
            let version: UInt64
            // From step 16 until a seal is made: small deferred frames and a
            // sync once a group is open. From step 30 until a deferred
            // commit has checkpointed: deferred frames until one no
            // longer fits with room for its seal and checkpoints over the
            // open group.
            // From step 36 until a durability point has checkpointed for
            // the entry budget: deferred commits of several small entries,
            // the sync once the group is past the budget a group may run
            // to (`CheckpointPolicy.groupSealShare`).
            let sealWanted = step >= 16 && !calls.contains { $0.kind == .sync && !$0.checkpoint }
            let fillingRegion = !sealWanted && step >= 30 && !calls.contains { $0.kind == .deferredCommit && $0.checkpoint }
            let groupingPastBudget = !sealWanted && !fillingRegion && step >= 36
                && !calls.contains { $0.kind == .sync && $0.checkpoint && $0.pastBudget }
            let scripted = sealWanted || fillingRegion || groupingPastBudget
            let groupOpen = try store.durableVersion < store.currentVersion
            var groupPastBudget = false
            if groupingPastBudget, groupOpen, let record = newestBefore,
               let link = try store.log.link(try store.currentVersion, of: record) {
                groupPastBudget = CheckpointPolicy.budgetStanding(record, entries: link.loggedEntries, regionPages: pages).checkpointsGroup
            }
            let doSync = sealWanted ? groupOpen : fillingRegion ? false : groupingPastBudget ? groupPastBudget
                : groupOpen && rng.chance(1, in: 4)
            var pastBudget = false
            if doSync {
                kind = .sync
                if let record = newestBefore, let link = try store.log.link(try store.currentVersion, of: record) {
                    pastBudget = CheckpointPolicy.budgetStanding(record, entries: link.loggedEntries, regionPages: pages).checkpointsGroup
                }
                version = try store.sync()
                if all[version] == nil { all[version] = contents }
            } else {
                kind = !scripted && rng.chance(1, in: 3) ? .durableCommit : .deferredCommit
                let txn = try store.beginWriteBlocking()
                var working = contents
                // Filling the region: frames of about 2 KiB, which fill it in a few steps.
                switch fillingRegion ? 100 : groupingPastBudget ? 101 : scripted ? 0 : rng.below(20) {
                case 100: try LedgerModel.stageTransfer(txn, &working, &rng, fillers: 2, sizes: [850])
                case 101: try LedgerModel.stageTransfer(txn, &working, &rng, fillers: 6, sizes: [0, 40])
                case 0..<8: try LedgerModel.stageTransfer(txn, &working, &rng, fillers: 0, sizes: [])
                case 8..<15: try LedgerModel.stageTransfer(txn, &working, &rng, fillers: 1 + Int(rng.below(2)), sizes: [0, 40, 700, 2000])
                case 15..<18: try LedgerModel.stageTransfer(txn, &working, &rng, fillers: 1 + Int(rng.below(3)), sizes: LedgerModel.fillerSizes)
                default: try LedgerModel.stageTransfer(txn, &working, &rng, fillers: 8 + Int(rng.below(6)), sizes: LedgerModel.fillerSizes)
                }
                version = try txn.commit(durability: kind == .durableCommit ? .durable : .deferred)
                contents = working
                all[version] = working
            }
            let newest = try Self.newestRecord(store)
            let checkpoint = newest?.version != newestBefore?.version && newest?.version == version && newest?.logRegion != nil
            calls.append(Call(kind: kind, version: version, durableAfter: try store.durableVersion,
                              firstIndex: first, lastIndex: recorder.count - 1, checkpoint: checkpoint, pastBudget: pastBudget))
        }
        pinned?.0.close()
        return Recording(base: ledger.base, baseVersion: baseVersion, log: recorder.operations, calls: calls, contents: all, pages: pages)
    }

    /// Writes `image` to a fresh file in `dir` and opens it as a first
    /// opener (no lock file), inspects it, and with `continueWith` commits
    /// on it through the log and reopens it. The version opened, or nil
    /// after recording an issue.
    static func check(_ image: CrashImage, _ recording: Recording, crash: Int, in dir: TemporaryDirectory, name: String,
                      continueWith: SeededGenerator?, label: @autoclosure () -> String) throws -> Result<UInt64, Failure> {
        try dir.withDatabase(name, bytes: image.bytes) { path in
            try check(path, recording, crash: crash, continueWith: continueWith, label: label())
        }
    }

    static func check(_ path: String, _ recording: Recording, crash: Int, continueWith: SeededGenerator?,
                      label: @autoclosure () -> String) throws -> Result<UInt64, Failure> {
        var store: Store
        do {
            store = try Store.open(path, options: StoreOptions.commitLog(pages: recording.pages, create: false))
        } catch {
            return .failure(Failure(kind: "open", message: "\(label()): does not open: \(error)"))
        }
        defer { store.close() }
        let inspection: StoreInspection
        do {
            inspection = try StoreInspection.inspect(store)
        } catch {
            return .failure(Failure(kind: "open", message: "\(label()): reading v\((try? store.currentVersion) ?? 0) failed: \(error)"))
        }
        let version = inspection.version
        guard inspection.problems.isEmpty else {
            return .failure(Failure(kind: "verify", message: "\(label()): v\(version): \(inspection.problems.prefix(6))"))
        }
        let acknowledged = recording.acknowledged(crash: crash)
        guard version >= acknowledged else {
            return .failure(Failure(kind: "version", message: "\(label()): opened v\(version), but v\(acknowledged) had been acknowledged durable"))
        }
        let possible = recording.possible(crash: crash)
        guard possible.contains(version) else {
            return .failure(Failure(kind: "version", message: "\(label()): opened v\(version), not a durability point written by then \(possible.sorted())"))
        }
        guard let expected = recording.contents[version], LedgerModel.same(inspection.contents, expected) else {
            let difference = recording.contents[version].map { StoreInspection.difference(inspection.contents, $0) } ?? "no such version"
            return .failure(Failure(kind: "contents", message: "\(label()): v\(version) differs from its commit: \(difference)"))
        }
        let durable = try store.durableVersion
        guard durable == version else {
            return .failure(Failure(kind: "version", message: "\(label()): a first opener's durable version v\(durable) is not the version it opened, v\(version)"))
        }
        guard var rng = continueWith else { return .success(version) }
        do {
            if let problem = try Self.commitAfterRecovery(&store, path: path, pages: recording.pages, from: version,
                                                          contents: expected, rng: &rng) {
                return .failure(Failure(kind: "after recovery", message: "\(label()): \(problem)"))
            }
        } catch {
            return .failure(Failure(kind: "after recovery", message: "\(label()): committing after recovery from v\(version) failed: \(error)"))
        }
        return .success(version)
    }

    /// The recovered `store`, at `version` with `contents`, takes commits
    /// through the log: a deferred one, a sync, a durable one, then a group
    /// left open; each must read back. Then it is reopened by a first
    /// opener, which must find the last durable one. What went wrong, or nil.
    static func commitAfterRecovery(_ store: inout Store, path: String, pages: UInt32, from version: UInt64,
                                    contents expected: Contents, rng: inout SeededGenerator) throws -> String? {
        var contents = expected
        var durableContents = contents
        var durableVersion = version
        for step in 0..<5 {
            if step == 1 {
                durableVersion = try store.sync()
                durableContents = contents
            } else {
                let txn = try store.beginWriteBlocking()
                var working = contents
                try LedgerModel.stageTransfer(txn, &working, &rng, fillers: step == 3 ? 1 : 0, sizes: [40, 700])
                let committed = try txn.commit(durability: step == 2 ? .durable : .deferred)
                contents = working
                // A deferred commit that had to checkpoint is durable too.
                if try store.durableVersion == committed {
                    durableVersion = committed
                    durableContents = contents
                }
            }
            let after = try StoreInspection.inspect(store)
            guard after.problems.isEmpty, LedgerModel.same(after.contents, contents) else {
                let difference = StoreInspection.difference(after.contents, contents)
                return "commit \(step) after recovery from v\(version): v\(after.version): \(after.problems.prefix(5)) \(difference)"
            }
        }
        store.close()
        unlink(path + ".lock")
        store = try Store.open(path, options: StoreOptions.commitLog(pages: pages, create: false))
        let reopened = try StoreInspection.inspect(store)
        guard reopened.problems.isEmpty, reopened.version == durableVersion, LedgerModel.same(reopened.contents, durableContents) else {
            let difference = StoreInspection.difference(reopened.contents, durableContents)
            return "after recovery from v\(version) and new commits (durable through v\(durableVersion)), the next first opener "
                + "found v\(reopened.version): \(reopened.problems.prefix(5)) \(difference)"
        }
        return nil
    }

    struct Failure: Error {
        /// What kind of check failed: open, verify, version, contents, after recovery.
        var kind: String
        var message: String
    }

    /// The fates for `writes` (log indices): every combination of applied,
    /// dropped and torn for at most `exhaustive` ops, else `samples` seeded draws.
    static func fateLists(_ ops: [Int], log: [RecordingIO.Operation], exhaustive: Int, samples: Int,
                          rng: inout SeededGenerator) -> [[CrashImage.Fate]] {
        if ops.count <= exhaustive {
            var lists: [[CrashImage.Fate]] = [[]]
            for index in ops {
                var choices: [CrashImage.Fate] = [.applied, .dropped]
                if let torn = CrashImage.tornFate(log[index], &rng) { choices.append(torn) }
                lists = lists.flatMap { list in choices.map { list + [$0] } }
            }
            return lists
        }
        return (0..<samples).map { _ in ops.map { CrashImage.randomFate(log[$0], &rng) } }
    }

    static func run(seed: UInt64, pages: UInt32, steps: Int, samples: Int) throws {
        let started = ContinuousClock.now
        let dir = try TemporaryDirectory(prefix: "firn-log-power", inMemory: true)
        let recording = try Self.record(in: dir, seed: seed, pages: pages, steps: steps)
        let log = recording.log
        let checkpoints = recording.calls.filter(\.checkpoint)
        #expect(checkpoints.count >= 4, "the recording made \(checkpoints.count) checkpoints")
        #expect(recording.calls.contains { !$0.checkpoint && $0.kind != .sync && $0.version > $0.durableAfter },
                "no deferred frame")
        #expect(recording.calls.contains { !$0.checkpoint && $0.kind == .sync }, "no seal")
        #expect(recording.calls.contains { $0.checkpoint && $0.kind == .deferredCommit && $0.version > 0 },
                "no deferred commit that checkpointed over an open group")
        #expect(recording.calls.contains { $0.kind == .sync && $0.checkpoint && $0.pastBudget },
                "no durability point that checkpointed for the entry budget")
        var rng = SeededGenerator(seed: seed ^ 0xC4A5)
        var images = 0, continued = 0, atAcknowledged = 0, pastAcknowledged = 0, atFrame = 0
        var windows = 0, checkpointWindows = 0
        var failures: [String: Int] = [:]
        // The durable image through the last sync so far.
        var durableImage = CrashImage(base: recording.base)
        var durableThrough = -1
        let syncs = log.indices.filter { if case .sync = log[$0] { true } else { false } }
        for end in syncs + [log.count] {
            // The window: the ops after the last sync through this one (or the log's end).
            let window = Array((durableThrough + 1)..<end)
            windows += 1
            let touchesCheckpoint = recording.calls.contains { call in
                call.checkpoint && call.firstIndex <= end && call.lastIndex > durableThrough
            }
            if touchesCheckpoint { checkpointWindows += 1 }
            var variants: [(label: String, crash: Int, fates: [Int: CrashImage.Fate], reversed: Bool)] = []
            // A crash after each op, everything before it applied.
            for crash in durableThrough..<end { variants.append(("crash after op \(crash), all in order", crash, [:], false)) }
            // Just before the sync: each op alone lost or torn; combinations or samples.
            let crash = end - 1
            let doubt = window.filter { if case .sync = log[$0] { false } else { true } }
            if doubt.count > 4 {
                for index in doubt {
                    variants.append(("op \(index) dropped", crash, [index: .dropped], false))
                    if let torn = CrashImage.tornFate(log[index], &rng) {
                        variants.append(("op \(index) torn", crash, [index: torn], false))
                    }
                }
            }
            for (n, fates) in Self.fateLists(doubt, log: log, exhaustive: 4, samples: samples, rng: &rng).enumerated() {
                let reversed = doubt.count > 4 && n % 2 == 1
                variants.append(("fates \(zip(doubt, fates).map { "\($0):\($1)" }.joined(separator: " "))\(reversed ? ", reversed" : "")",
                                 crash, Dictionary(uniqueKeysWithValues: zip(doubt, fates)), reversed))
            }
            // After the sync.
            if end < log.count { variants.append(("crash after the sync, op \(end)", end, [:], false)) }

            for variant in variants {
                var image: CrashImage
                if variant.crash >= end {
                    image = CrashImage.build(from: durableImage, appliedThrough: durableThrough, log: log, crashIndex: variant.crash) { _, _ in .applied }
                } else {
                    image = durableImage
                    let ops = variant.crash > durableThrough ? Array((durableThrough + 1)...variant.crash) : []
                    for index in variant.reversed ? ops.reversed() : ops { image.apply(log[index], fate: variant.fates[index] ?? .applied) }
                }
                let doContinue = images % 8 == 0
                let label = "seed \(seed), \(pages) pages: window ops \(durableThrough + 1)…\(end) of \(log.count): \(variant.label)"
                let result = try Self.check(image, recording, crash: variant.crash, in: dir, name: "image-\(images).firn",
                                            continueWith: doContinue ? SeededGenerator(seed: UInt64(images) &* 7919) : nil,
                                            label: label)
                images += 1
                let opened: UInt64
                switch result {
                case let .success(version): opened = version
                case let .failure(failure):
                    // The first few of each kind in full; the rest counted.
                    failures[failure.kind, default: 0] += 1
                    if failures[failure.kind, default: 0] <= 3 { Issue.record("\(failure.message)") }
                    continue
                }
                if doContinue { continued += 1 }
                if opened == recording.acknowledged(crash: variant.crash) { atAcknowledged += 1 } else { pastAcknowledged += 1 }
                if !recording.calls.contains(where: { $0.checkpoint && $0.version == opened }) && opened != recording.baseVersion { atFrame += 1 }
                if variant.crash >= end && end < log.count {
                    // The sync completed: the durability point it made is current.
                    let owner = recording.calls.first { $0.firstIndex <= end && end <= $0.lastIndex }
                    let expected = max(recording.acknowledged(crash: end), owner?.durableAfter ?? 0)
                    #expect(opened == expected, "\(label): the sync completed, yet v\(opened) opened, not v\(expected)")
                }
            }
            if end < log.count {
                durableImage = CrashImage.build(from: durableImage, appliedThrough: durableThrough, log: log, crashIndex: end) { _, _ in .applied }
                durableThrough = end
            }
        }
        let elapsed = ContinuousClock.now - started
        let frames = recording.calls.filter { !$0.checkpoint && $0.kind != .sync }.count
        print("CommitLogCheckpointPowerLossTests [\(pages) pages, seed \(seed)]: \(images) crash images from \(log.count) ops, "
              + "\(recording.calls.count) calls (\(checkpoints.count) checkpoints at \(checkpoints.map { "v\($0.version)" }.joined(separator: " ")), "
              + "\(frames) frames, \(recording.calls.filter { $0.kind == .sync }.count) syncs), \(windows) windows (\(checkpointWindows) with a checkpoint); "
              + "opened at the acknowledged version \(atAcknowledged)×, past it \(pastAcknowledged)×, at a frame \(atFrame)×; "
              + "\(continued) also committed on after recovery; failed: \(failures.isEmpty ? "none" : "\(failures)"); \(elapsed)")
        let failed = failures.values.reduce(0, +)
        #expect(failed == 0, "\(failed) of \(images) crash images failed: \(failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)×" }.joined(separator: ", ")) (the first 3 of each kind are reported above)")
        #expect(images >= 300)
        #expect(pastAcknowledged > 0 && atFrame > 0)
    }

    /// 48 calls on a region of 8 pages, and on one of 4 (a frame of one
    /// page at most; the region fills after four), with another seed:
    /// about 900 and 1150 crash images. Runtime: about 6–12 s each (the two
    /// run in parallel).
    @Test(arguments: zip([UInt32(8), 4], [UInt64(0), 0x4]))
    func everyCrashImageAcrossCheckpointsOpensAtAnAcknowledgedDurabilityPoint(pages: UInt32, seedOffset: UInt64) throws {
        try Self.run(seed: Self.seed &+ seedOffset, pages: pages, steps: 60, samples: 16)
    }

    /// A power loss during a checkpoint's sync that kept its record but
    /// lost one of its pages: the first opener rejects the record and opens
    /// the checkpoint before it (FORMAT.md 2.1) at its log's durable
    /// version. The rejected record stays in its slot, and the next commit
    /// takes its version number. Readers of that version must read the new
    /// commit (a frame over its own checkpoint, or a checkpoint that
    /// overwrote the rejected record), never the rejected record's trees;
    /// the file must verify clean and a first opener must find the new
    /// commit. (Found by the crash images above: before the fix, the next
    /// commit was a frame, and snapshots of its version read the rejected
    /// record — another version's trees, with a damaged page.)
    /// Runtime: well under a second.
    @Test func theCommitAfterARejectedCheckpointIsReadAsItselfNotAsTheRejectedRecord() throws {
        let dir = try TemporaryDirectory(prefix: "firn-log-rejected", inMemory: true)
        let path = dir.file("rejected.firn")
        var store = try Store.open(path, options: { var o = StoreOptions.commitLog(pages: 8, create: false); o.create = true; return o }())
        try store.write { txn in try txn.tree("t")?.put([1], [1]) }
        let checkpoint = try store.currentVersion
        #expect(try Self.newestRecord(store)?.logRegion != nil, "the first commit checkpoints")
        // A large transaction: a checkpoint of the next version.
        try store.write { txn in
            for n in 0..<200 { try txn.tree("t")?.put([2, UInt8(n)], [UInt8](repeating: 7, count: 300)) }
        }
        let lost = try #require(try Self.newestRecord(store))
        #expect(lost.version == checkpoint + 1 && lost.logRegion != nil)
        store.close()
        unlink(path + ".lock")
        // Its catalog root (born in it) lost to the power loss.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: lost.catalogRoot.page * UInt64(PageGeometry.defaultPageSize) + 100)
        try handle.write(contentsOf: Data([0xFF, 0xEE, 0xDD]))
        try handle.close()

        store = try Store.open(path, options: StoreOptions.commitLog(pages: 8, create: false))
        #expect(store.openCheck.rejected?.version == lost.version)
        #expect(try store.currentVersion == checkpoint)
        // The next commit, version = the rejected record's.
        try store.write { txn in try txn.tree("t")?.put([3], [3]) }
        let next = try store.currentVersion
        #expect(next == lost.version)
        let snapshot = try store.snapshot()
        let keys = try StoreInspection.read(snapshot)["t"].map { $0.keys.sorted { $0.lexicographicallyPrecedes($1) } }
        #expect(keys == [[1], [3]], "v\(next) reads \(keys?.count ?? 0) keys of tree t, not the checkpoint's [1] and the new commit's [3]")
        let report = Verifier.verify(snapshot, slots: try store.readSlots())
        #expect(report.findings.isEmpty, "\(report.findings.prefix(5))")
        snapshot.close()
        store.close()
        unlink(path + ".lock")
        store = try Store.open(path, options: StoreOptions.commitLog(pages: 8, create: false))
        defer { store.close() }
        let reopenedVersion = try store.currentVersion
        #expect(reopenedVersion == next)
        let reopened = try StoreInspection.read(try store.snapshot())["t"].map { $0.keys.sorted { $0.lexicographicallyPrecedes($1) } }
        #expect(reopened == [[1], [3]], "reopened at v\(reopenedVersion): \(reopened?.count ?? 0) keys")
    }
}
