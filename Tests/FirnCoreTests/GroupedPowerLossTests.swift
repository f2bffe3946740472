import Foundation
import Synchronization
import Testing
@testable import FirnCore
import FirnTestSupport

/// Power loss around the durability point of a group written by another
/// process (FORMAT.md 8.1). `GroupedCommitTests` covers groups whose own
/// store syncs them, with durability `.full`; here the group's writer never
/// makes a durability point: another store on the file (its own lock-file
/// session, as another process has) does — by `sync()` (`.full`, and
/// `.twoPhase`, whose extra sync comes before the sealed record), by a
/// durable commit on top, and after the writer "died" between a deferred
/// commit's record and its publication (the record of the version it
/// published is overwritten, FORMAT.md 2.1: the syncer must accept and seal
/// the dead writer's last record, not fall back below the published version).
///
/// Every store's I/O goes to one shared log; crash images are built from it
/// as `CrashImage` models a power loss: durable through the last completed
/// sync, each later write kept, dropped or torn. For each window (the ops
/// after the last durability point through the next one) and each crash
/// point in it: everything in order; and at the crash just before the
/// durability point's final sync, each in-doubt op alone dropped or torn and
/// 60 random fates (half applied in reverse order). Every image must open at
/// the durable version before the window or at the whole group, verified
/// and with its contents; a crash after the final sync must open at the
/// group. Runtime: about 4–6 s (535 images).
@Suite struct GroupedPowerLossTests {
    /// One log for the I/O of every store on the file, in the order it happened.
    final class SharedLog: @unchecked Sendable {
        private let operations = Mutex<[RecordingIO.Operation]>([])
        var all: [RecordingIO.Operation] { operations.withLock { $0 } }
        var count: Int { operations.withLock { $0.count } }
        func append(_ operation: RecordingIO.Operation) { operations.withLock { $0.append(operation) } }
    }

    /// `RecordingIO` into a shared log.
    final class SharedLogIO: FileIO, @unchecked Sendable {
        let base: any FileIO
        let log: SharedLog
        init(_ base: any FileIO, log: SharedLog) {
            self.base = base
            self.log = log
        }
        var path: String { base.path }
        var descriptor: Int32 { base.descriptor }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
            try base.write(bytes, at: offset)
            log.append(.write(offset: offset, bytes: Array(bytes)))
        }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
            try base.read(into: buffer, at: offset)
        }
        func sync() throws(FirnError) {
            try base.sync()
            log.append(.sync)
        }
        func extend(to size: UInt64) throws(FirnError) {
            try base.extend(to: size)
            log.append(.extend(to: size))
        }
        func size() throws(FirnError) -> UInt64 { try base.size() }
        func close() { base.close() }
    }

    static let seed: UInt64 = 0x6_C0_55

    /// The workload: a writer store makes durable commits, then groups of
    /// deferred commits that other stores close.
    static func record(in dir: TemporaryDirectory) throws -> PowerLoss.GroupRecording {
        let path = dir.file("cross.firn")
        let (baseVersion, baseContents) = try LedgerModel.createStore(at: path)
        let base = try PowerLoss.readFile(path)
        let log = SharedLog()
        func open(_ durability: Durability) throws -> Store {
            var options = StoreOptions.pageCommits
            options.durability = durability
            options.wrapIO = { SharedLogIO($0, log: log) }
            return try Store.open(path, options: options)
        }
        let writer = try open(.full), syncer = try open(.full), twoPhaseSyncer = try open(.twoPhase)
        defer {
            writer.close()
            syncer.close()
            twoPhaseSyncer.close()
        }
        var commits = LedgerCommits(seed: seed, version: baseVersion, contents: baseContents)
        func commit(_ store: Store, _ durability: CommitDurability) throws -> UInt64 { try commits.commit(store, durability) }
        _ = try commit(writer, .durable)
        var windows = PowerLoss.GroupWindows(durable: try commit(writer, .durable))
        func window(_ name: String, from first: Int, members: [UInt64], closedAt version: UInt64) {
            windows.close(name, indices: first..<log.count, members: members, at: version)
        }

        // sync() by another store.
        var first = log.count
        var members = try (0..<4).map { _ in try commit(writer, .deferred) }
        let synced = try syncer.sync()
        let writerDurable = try writer.durableVersion
        #expect(synced == members.last && writerDurable == synced)
        window("sync() by another store", from: first, members: members, closedAt: synced)

        // A durable commit by another store on top of the group.
        first = log.count
        members = try (0..<3).map { _ in try commit(writer, .deferred) }
        let closing = try commit(syncer, .durable)
        window("a durable commit by another store", from: first, members: members + [closing], closedAt: closing)

        // sync() by a `.twoPhase` store: one sync before the sealed record, one after.
        first = log.count
        members = try (0..<3).map { _ in try commit(writer, .deferred) }
        let twoPhase = try twoPhaseSyncer.sync()
        #expect(twoPhase == members.last)
        window("sync() by another, twoPhase store", from: first, members: members, closedAt: twoPhase)

        // The writer "dies" after the record of a deferred commit, before
        // publishing it: the lock file is put back to the version published
        // before (the dead writer's state; this store then stays idle).
        first = log.count
        members = try (0..<3).map { _ in try commit(writer, .deferred) }
        let lockFile = try #require(writer.lockFile)
        lockFile.mapping.store64(LockFileLayout.latestVersionOffset, members[members.count - 2])
        let sealed = try syncer.sync()
        #expect(sealed == members.last, "sync() after a writer died before publishing v\(members.last ?? 0) returned v\(sealed)")
        let (latest, latestDurable) = (try syncer.currentVersion, try syncer.durableVersion)
        #expect(latest == members.last && latestDurable == members.last)
        window("sync() by another store after the writer died before publishing", from: first, members: members, closedAt: sealed)
        return PowerLoss.GroupRecording(base: base, log: log.all, contents: commits.all, windows: windows.all, pageSize: writer.pageSize)
    }

    @Test func everyCrashImageAroundAnotherProcessesSyncOpensAtTheDurableBaseOrTheWholeGroup() throws {
        let started = ContinuousClock.now
        let dir = try TemporaryDirectory(prefix: "firn-grouped-cross", inMemory: true)
        let recording = try Self.record(in: dir)
        let log = recording.log
        var rng = SeededGenerator(seed: Self.seed ^ 0xC4A5)
        var images = 0, before = 0, after = 0, failures = 0
        for window in recording.windows {
            guard let firstIndex = window.indices.first, let finalSync = window.indices.last, case .sync = log[finalSync] else {
                Issue.record("\(window.name): the window does not end with a sync")
                continue
            }
            let durableImage = CrashImage.build(base: recording.base, log: log, crashIndex: firstIndex - 1) { _, _ in .applied }
            /// The image after a crash right after op `crash`: durable through
            /// the last sync before it, each later op given its fate (in
            /// reverse order when `reversed`).
            func image(crash: Int, fates: [Int: CrashImage.Fate], reversed: Bool) -> CrashImage {
                let lastSync = max(CrashImage.lastSync(in: log, atOrBefore: crash) ?? -1, firstIndex - 1)
                var image = CrashImage.build(from: durableImage, appliedThrough: firstIndex - 1, log: log, crashIndex: lastSync) { _, _ in .applied }
                let doubt = lastSync < crash ? Array((lastSync + 1)...crash) : []
                for index in reversed ? doubt.reversed() : doubt { image.apply(log[index], fate: fates[index] ?? .applied) }
                return image
            }
            var variants: [(label: String, crash: Int, fates: [Int: CrashImage.Fate], reversed: Bool)] = []
            for crash in window.indices { variants.append(("crash after op \(crash), all in order", crash, [:], false)) }
            let crash = finalSync - 1
            let lastSync = max(CrashImage.lastSync(in: log, atOrBefore: crash) ?? -1, firstIndex - 1)
            let doubt = lastSync < crash ? Array((lastSync + 1)...crash) : []
            for index in doubt {
                variants.append(("op \(index) dropped", crash, [index: .dropped], false))
                if let torn = CrashImage.tornFate(log[index], &rng) { variants.append(("op \(index) torn", crash, [index: torn], false)) }
            }
            for sample in 0..<60 {
                var fates: [Int: CrashImage.Fate] = [:]
                for index in doubt { fates[index] = CrashImage.randomFate(log[index], &rng) }
                variants.append(("sample \(sample)", crash, fates, sample % 2 == 1))
            }
            for variant in variants {
                let label = "\(window.name) (ops \(firstIndex)…\(finalSync)): \(variant.label)"
                let opened = try recording.check(
                    image(crash: variant.crash, fates: variant.fates, reversed: variant.reversed), window: window,
                    in: dir, name: "x\(images).firn", label: label)
                images += 1
                switch opened {
                case nil: failures += 1
                case window.durableBefore?: before += 1
                default: after += 1
                }
                if variant.crash == finalSync {
                    #expect(opened == window.durableAfter, "\(label): the final sync completed, yet v\(window.durableAfter) was not current")
                }
                if failures >= 5 {
                    Issue.record("stopping after 5 failing images")
                    return
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        print("GroupedPowerLossTests: \(images) crash images over \(recording.windows.count) windows "
              + "(\(recording.windows.map { "\($0.name): \($0.indices.count) ops, v\($0.durableBefore)→v\($0.durableAfter)" }.joined(separator: "; "))); "
              + "opened at the durable base \(before)×, at the whole group \(after)×; \(elapsed)")
        #expect(before > 0 && after > 0)
    }
}
