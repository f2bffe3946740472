import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Power loss: a ledger workload runs through `RecordingIO`, then the file
/// is rebuilt as a crash after every recorded operation could have left it
/// (`CrashImage`: durable up to the last completed sync, each later write
/// kept, dropped or torn by sectors, each later extend kept or not). Every
/// image must open read-write, verify clean, hold exactly the contents of a
/// version that was committed (or being committed) by then, and not be older
/// than the last commit that had returned before the crash.
@Suite struct PowerLossTests {
    /// Single-sync commits (`.full`: pages and record share one sync, the
    /// open-time check sorts out what made it) and two-phase ones.
    @Test(arguments: [Durability.full, .twoPhase])
    func everyCrashImageOpensAtACommittedVersion(durability: Durability) throws {
        let started = ContinuousClock.now
        let dir = try TemporaryDirectory(prefix: "firn-power", inMemory: true)
        let recording = try PowerLoss.record(in: dir, seed: PowerLoss.seed, durability: durability)
        let log = recording.log
        var rng = SeededGenerator(seed: PowerLoss.seed ^ 0x5EED)
        var states = 0, continued = 0
        var byVersionGap: [UInt64: Int] = [:]
        var failures = 0
        // The image durable through the last sync so far, advanced as the crash point moves on.
        var durableImage = CrashImage(base: recording.base)
        var durableThrough = -1
        for crashIndex in -1..<log.count {
            if let sync = CrashImage.lastSync(in: log, atOrBefore: crashIndex), sync > durableThrough {
                durableImage = CrashImage.build(from: durableImage, appliedThrough: durableThrough, log: log, crashIndex: sync) { _, _ in .applied }
                durableThrough = sync
            }
            // A crash right before a sync completes has the most writes in doubt: try more variants there.
            let beforeSync: Bool
            if crashIndex + 1 < log.count, case .sync = log[crashIndex + 1] { beforeSync = true } else { beforeSync = false }
            let variants = beforeSync ? 8 : 1
            for variant in 0..<variants {
                var fates: [Int: CrashImage.Fate] = [:]
                let image = CrashImage.build(from: durableImage, appliedThrough: durableThrough, log: log, crashIndex: crashIndex) { index, operation in
                    let fate: CrashImage.Fate
                    switch variant {
                    case 1: fate = .applied
                    case 2: fate = .dropped
                    default: fate = CrashImage.randomFate(operation, &rng)
                    }
                    fates[index] = fate
                    return fate
                }
                let durable = CrashImage.lastSync(in: log, atOrBefore: crashIndex) ?? -1
                // Versions the file may hold: the base or any commit whose record was written by then;
                // at least the newest whose commit() had returned before the last completed sync.
                let possible = [recording.baseVersion] + recording.commits.filter { $0.recordIndex <= crashIndex }.map(\.version)
                let oldest = recording.commits.last { $0.returnIndex <= durable }?.version ?? recording.baseVersion
                let label = "crash after op \(crashIndex)/\(log.count) variant \(variant) (durable through op \(durable); "
                    + "fates \(fates.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")))"
                let doContinue = states % 6 == 0
                var nextRng = SeededGenerator(seed: UInt64(states) &* 7919)
                let result = try PowerLoss.open(image, in: dir, name: "image-\(states).firn", afterwards: doContinue ? { store in
                    // The recovered store takes new commits, which reuse the pages the lost commit scribbled on.
                    var contents = try StoreInspection.inspect(store).contents
                    let txn = try store.beginWriteBlocking()
                    try LedgerModel.stageRandomChanges(txn, &contents, &nextRng)
                    let version = try txn.commit()
                    let after = try StoreInspection.inspect(store)
                    #expect(after.problems.isEmpty, "\(label), commit after recovery: \(after.problems.prefix(5))")
                    #expect(after.version == version && LedgerModel.same(after.contents, contents), "\(label): commit after recovery reads back wrong")
                    continued += 1
                } : nil)
                states += 1
                switch result {
                case let .failure(error):
                    Issue.record("\(label): does not open: \(error)")
                    failures += 1
                case let .success(inspection):
                    #expect(inspection.problems.isEmpty, "\(label): v\(inspection.version): \(inspection.problems.prefix(8))")
                    #expect(possible.contains(inspection.version),
                            "\(label): opened v\(inspection.version), not among the versions written by then \(possible)")
                    #expect(inspection.version >= oldest, "\(label): opened v\(inspection.version), but v\(oldest) had been durably committed")
                    if let expected = recording.contents(of: inspection.version), inspection.problems.isEmpty {
                        #expect(LedgerModel.same(inspection.contents, expected),
                                "\(label): v\(inspection.version) differs from its commit: \(StoreInspection.difference(inspection.contents, expected))")
                    }
                    if inspection.version >= oldest { byVersionGap[inspection.version - oldest, default: 0] += 1 }
                    if !inspection.problems.isEmpty || inspection.version < oldest { failures += 1 }
                }
                if failures >= 5 {
                    Issue.record("stopping after 5 failing crash states")
                    return
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        print("PowerLossTests [\(durability)]: \(states) crash states from \(log.count) recorded operations over "
              + "\(recording.commits.count) commits (\(continued) also committed after recovery); "
              + "opened at the oldest allowed version \(byVersionGap[0] ?? 0)×, a newer one \(states - (byVersionGap[0] ?? 0))×; "
              + "seed \(PowerLoss.seed); \(elapsed)")
        #expect(states >= 300)
    }

    /// The checker can fail: with one sync per commit, the disk can keep a
    /// commit record while losing a page it points to. Build exactly those
    /// images for one commit — record kept, all writes of one page dropped —
    /// and require that every one whose page the version reaches is caught:
    /// the open-time check rejects the record (the image opens at the
    /// version before, which differs from the commit's contents). Pages the
    /// commit wrote and freed again within itself are not reached and losing
    /// them is harmless. Also flips one byte in a reached page.
    @Test func imagesWithALostPhaseOnePageAreFlagged() throws {
        let dir = try TemporaryDirectory(prefix: "firn-power-sanity", inMemory: true)
        let recording = try PowerLoss.record(in: dir, seed: PowerLoss.seed)
        let log = recording.log
        let pageSize = UInt64(recording.pageSize)
        // The commit with the most page writes, after the pinned snapshot was released.
        let commit = try #require(recording.commits.dropFirst(24).max { a, b in
            (a.recordIndex - a.firstIndex) < (b.recordIndex - b.firstIndex)
        })
        // The previous commit ended with a sync: everything before this commit is durable.
        guard commit.firstIndex > 0, case .sync = log[commit.firstIndex - 1] else {
            Issue.record("v\(commit.version) does not start right after a sync")
            return
        }
        var pagesWritten = Set<UInt64>()
        for index in commit.firstIndex..<commit.recordIndex {
            if case let .write(offset, _) = log[index] { pagesWritten.insert(offset / pageSize) }
        }
        // The intact image, and the pages the version keeps free (written and released within the commit).
        let intact = CrashImage.build(base: recording.base, log: log, crashIndex: commit.returnIndex) { _, _ in .applied }
        var freeInVersion = Set<UInt64>()
        let intactResult = try PowerLoss.open(intact, in: dir, name: "intact.firn") { store in
            let snapshot = try store.snapshot()
            defer { snapshot.close() }
            try snapshot.forEachSpaceEntry { decoded, _, _ in
                if case let .free(page)? = decoded { freeInVersion.insert(page) }
            }
        }
        let intactInspection = try intactResult.get()
        #expect(intactInspection.problems.isEmpty && intactInspection.version == commit.version)

        var flagged = 0, harmless = 0
        for page in pagesWritten.sorted() {
            // Durable through the previous commit; then as if there were no sync between
            // this commit's pages and its record: the record made it, this page did not.
            var image = CrashImage.build(base: recording.base, log: log, crashIndex: commit.firstIndex - 1) { _, _ in .applied }
            for index in commit.firstIndex...commit.recordIndex {
                if case let .write(offset, _) = log[index], index < commit.recordIndex, offset / pageSize == page {
                    image.apply(log[index], fate: .dropped)
                } else {
                    image.apply(log[index], fate: .applied)
                }
            }
            let result = try PowerLoss.open(image, in: dir, name: "lost-\(page).firn")
            let detected: Bool
            switch result {
            case .failure: detected = true
            case let .success(inspection):
                detected = !inspection.problems.isEmpty || inspection.contents != commit.contents
            }
            if freeInVersion.contains(page) {
                harmless += 1
            } else {
                #expect(detected, "v\(commit.version): losing page \(page) while keeping the record went unnoticed")
                if detected { flagged += 1 }
            }
        }
        #expect(flagged > 0)
        // One flipped byte in the middle of a reached page.
        let reached = pagesWritten.subtracting(freeInVersion).sorted()
        let victim = try #require(reached.first)
        var corrupted = intact
        corrupted.apply(.write(offset: victim * pageSize + pageSize / 2, bytes: [0x5A ^ intact.bytes[Int(victim * pageSize + pageSize / 2)]]),
                        fate: .applied)
        let corruptedResult = try PowerLoss.open(corrupted, in: dir, name: "flipped.firn")
        if case let .success(inspection) = corruptedResult {
            #expect(!inspection.problems.isEmpty || inspection.version != commit.version,
                    "a flipped byte in page \(victim) went unnoticed")
        }
        print("PowerLossTests sanity: v\(commit.version) wrote \(pagesWritten.count) pages; losing each of the "
              + "\(flagged) it reaches was flagged, \(harmless) were freed within the commit (harmless); a flipped byte was flagged")
    }
}
