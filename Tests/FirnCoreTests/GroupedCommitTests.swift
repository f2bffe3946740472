import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Grouped commits (FORMAT.md 8.1): deferred commits write their pages and
/// an unsealed record without a sync, each into the slot not holding the
/// last durable version *D*; the durability point (`Store.sync()` or a
/// durable commit) seals the newest record and syncs once. A crash keeps the
/// whole group or none of it: every image opens at *D* or at the group's
/// last version, never at a member in between.
@Suite struct GroupedCommitTests {
    static let seed: UInt64 = 0x6_2_0_0_9

    /// A recorded workload: durable commits, a group closed by `sync()`, a
    /// group closed by a durable commit, and a group left open.
    static func record(in dir: TemporaryDirectory, groupSize: Int = 4) throws -> PowerLoss.GroupRecording {
        let ledger = try RecordedLedger(path: dir.file("grouped.firn"), options: .pageCommits)
        let (store, recorder) = (ledger.store, ledger.recorder)
        defer { store.close() }
        var commits = LedgerCommits(seed: seed, version: ledger.baseVersion, contents: ledger.baseContents)
        func commit(_ durability: CommitDurability) throws -> UInt64 { try commits.commit(store, durability) }
        // Two ordinary durable commits first.
        _ = try commit(.durable)
        var windows = PowerLoss.GroupWindows(durable: try commit(.durable))
        #expect(try store.durableVersion == windows.durable)

        // A group closed by sync().
        var first = recorder.count
        var members = try (0..<groupSize).map { _ in try commit(.deferred) }
        #expect(try store.durableVersion == windows.durable)
        #expect(try store.currentVersion == members.last)
        let synced = try store.sync()
        #expect(try synced == members.last && (store.durableVersion) == synced)
        windows.close("sync", indices: first..<recorder.count, members: members, at: synced)

        // A group closed by a durable commit on top of it.
        first = recorder.count
        members = try (0..<groupSize).map { _ in try commit(.deferred) }
        let closing = try commit(.durable)
        #expect(try store.durableVersion == closing)
        windows.close("durable commit", indices: first..<recorder.count, members: members + [closing], at: closing)

        // A group never closed: a crash anywhere in it opens at D.
        first = recorder.count
        members = try (0..<groupSize).map { _ in try commit(.deferred) }
        windows.close("open", indices: first..<recorder.count, members: members, at: windows.durable)
        return PowerLoss.GroupRecording(base: ledger.base, log: recorder.operations, contents: commits.all,
                                        windows: windows.all, pageSize: store.pageSize)
    }

    /// Every crash inside each window: for each point in the window, every
    /// op before it applied in order (a crash at that op); each op alone
    /// dropped, and alone torn, with all others applied; and a seeded random
    /// sample of fates (applied, dropped, torn; in order or reversed). The
    /// image with every write applied opens at the durable version after the
    /// window's sync.
    @Test func everyCrashImageOfAGroupOpensAtTheDurableBaseOrTheWholeGroup() throws {
        let dir = try TemporaryDirectory(prefix: "firn-grouped", inMemory: true)
        let recording = try Self.record(in: dir)
        var rng = SeededGenerator(seed: Self.seed ^ 0xC4A5)
        var images = 0, before = 0, after = 0, failures = 0
        for window in recording.windows {
            let durable = CrashImage.build(base: recording.base, log: recording.log, crashIndex: window.indices[0] - 1) { _, _ in .applied }
            let ops = window.indices
            var variants: [(String, [CrashImage.Fate], Bool)] = []
            for cut in 0...ops.count {
                variants.append(("crash after \(cut) ops", ops.indices.map { $0 < cut ? .applied : .dropped }, false))
            }
            for i in ops.indices {
                variants.append(("op \(i) dropped", ops.indices.map { $0 == i ? .dropped : .applied }, false))
                if let torn = CrashImage.tornFate(recording.log[ops[i]], &rng) {
                    variants.append(("op \(i) torn", ops.indices.map { $0 == i ? torn : .applied }, false))
                }
            }
            for sample in 0..<200 {
                let keepMost = sample % 3 == 0
                let fates: [CrashImage.Fate] = ops.map { index in
                    if keepMost && !rng.chance(1, in: 8) { return .applied }
                    return CrashImage.randomFate(recording.log[index], &rng)
                }
                variants.append(("sample \(sample)", fates, sample % 2 == 1))
            }
            for (label, fates, reversed) in variants {
                var image = durable
                let order = reversed ? Array(zip(ops, fates).reversed()) : Array(zip(ops, fates))
                for (index, fate) in order { image.apply(recording.log[index], fate: fate) }
                let opened = try recording.check(image, window: window, in: dir, name: "g\(images).firn",
                                            label: "\(window.name) window (\(ops.count) ops): \(label)")
                images += 1
                switch opened {
                case nil: failures += 1
                case window.durableBefore?: before += 1
                default: after += 1
                }
                // In order (reversed, an earlier unsealed record may win its slot).
                if !reversed && fates.allSatisfy({ $0 == .applied }) {
                    #expect(opened == window.durableAfter, "\(window.name): every write made it, yet v\(window.durableAfter) was not current")
                }
                if failures >= 5 {
                    Issue.record("stopping after 5 failing images")
                    return
                }
            }
        }
        print("GroupedCommitTests: \(images) crash images over \(recording.windows.count) windows "
              + "(\(recording.windows.map { "\($0.name): \($0.indices.count) ops, v\($0.durableBefore)→v\($0.durableAfter)" }.joined(separator: "; "))); "
              + "opened at the durable base \(before)×, at the whole group \(after)×")
        #expect(before > 0 && after > 0)
    }

    /// The records of a group: unsealed, all in the slot not holding D, each
    /// distance reaching back to D; the durability point rewrites the last
    /// one sealed into the same slot and is the group's only sync.
    @Test func aGroupWritesItsRecordsIntoTheSlotNotHoldingTheDurableBaseAndSyncsOnce() throws {
        let dir = try TemporaryDirectory(prefix: "firn-grouped-shape", inMemory: true)
        let recording = try Self.record(in: dir)
        let window = try #require(recording.windows.first)
        let pageSize = UInt64(recording.pageSize)
        var records: [(slot: UInt64, record: CommitRecord)] = []
        var syncs = 0
        for index in window.indices {
            switch recording.log[index] {
            case .sync: syncs += 1
            case let .write(offset, bytes) where offset < 2 * pageSize:
                let record = try bytes.withUnsafeBytes { try CommitRecord.decode($0).get() }
                records.append((offset / pageSize, record))
            default: break
            }
        }
        #expect(syncs == 1)
        if case .sync = recording.log[try #require(window.indices.last)] {} else { Issue.record("the window does not end with its sync") }
        #expect(records.count == window.members.count + 1)
        #expect(Set(records.map(\.slot)).count == 1, "the group's records went to both slots")
        for (i, (_, record)) in records.enumerated() {
            #expect(record.durableBase == window.durableBefore)
            #expect(record.unsealed == (i < records.count - 1))
        }
        #expect(records.last?.record.version == window.durableAfter)
        #expect(records.last?.record.sealed == records.dropLast().last?.record.sealed)
    }

    /// A crash before the durability point opens at D even when every write
    /// of the group reached the disk; right after it, at the group's last version.
    @Test func aCrashBeforeTheDurabilityPointOpensAtDAndAfterItAtTheGroup() throws {
        let dir = try TemporaryDirectory(prefix: "firn-grouped-point", inMemory: true)
        let path = dir.file("point.firn")
        let (d, _) = try LedgerModel.createStore(at: path)
        let store = try Store.open(path, options: .pageCommits)
        for i in 0..<5 {
            let txn = try store.beginWriteBlocking()
            try txn.tree("t")?.put([UInt8(i)], [UInt8(i)])
            try txn.commit(durability: .deferred)
        }
        let n = try store.currentVersion
        #expect(n == d + 5)
        // Everything written (the page cache): an open without the lock file's word is a first opener.
        let pending = try PowerLoss.readFile(path)
        let groupVersion = try store.sync()
        let sealed = try PowerLoss.readFile(path)
        store.close()
        #expect(groupVersion == n)
        for (bytes, expected, name) in [(pending, d, "pending"), (sealed, n, "sealed")] {
            let copy = dir.file("\(name).firn")
            #expect(FileManager.default.createFile(atPath: copy, contents: Data(bytes)))
            let reopened = try Store.open(copy, options: .pageCommits)
            #expect(try reopened.currentVersion == expected, "\(name)")
            #expect(try reopened.durableVersion == expected, "\(name)")
            let inspection = try StoreInspection.inspect(reopened)
            #expect(inspection.findings.isEmpty, "\(name): \(inspection.findings.prefix(3))")
            if expected == d {
                #expect(reopened.openCheck.rejected?.version == n)
                // The next writer overwrites the unsealed record's slot with D + 1.
                let txn = try reopened.beginWriteBlocking()
                try txn.tree("t")?.put([9], [9])
                #expect(try txn.commit() == d + 1)
                #expect(try StoreInspection.inspect(reopened).findings.isEmpty)
            }
            reopened.close()
        }
    }

    /// A long group on a store where nobody pins anything: the pages D sees
    /// are never reused while the group is open (the file as the group left
    /// it still opens at D, intact), and the group's intermediate versions
    /// are recycled, so many groups do not grow the file without bound.
    @Test func spaceReuseKeepsTheDurableBaseIntactAndTheFileBounded() throws {
        let dir = try TemporaryDirectory(prefix: "firn-grouped-space", inMemory: true)
        let path = dir.file("space.firn")
        let (_, initial) = try LedgerModel.createStore(at: path)
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        var rng = SeededGenerator(seed: Self.seed ^ 0x5BA)
        var contents = initial
        var durableContents = initial
        var sizes: [UInt64] = [], live: [UInt64] = []
        for group in 0..<40 {
            let d = try store.durableVersion
            for _ in 0..<(group == 0 ? 300 : 25) {
                let txn = try store.beginWriteBlocking()
                try LedgerModel.stageRandomChanges(txn, &contents, &rng)
                try txn.commit(durability: .deferred)
            }
            if group == 0 || group == 39 {
                // The file as the open group left it: D must be whole.
                let copy = dir.file("open-\(group).firn")
                #expect(try FileManager.default.createFile(atPath: copy, contents: Data(PowerLoss.readFile(path))))
                let reopened = try Store.open(copy, options: .pageCommits)
                #expect(try reopened.currentVersion == d)
                let inspection = try StoreInspection.inspect(reopened)
                #expect(inspection.problems.isEmpty, "group \(group): \(inspection.problems.prefix(3))")
                #expect(LedgerModel.same(inspection.contents, durableContents), "group \(group): D changed under the group")
                reopened.close()
            }
            let version = try store.sync()
            durableContents = contents
            sizes.append(try store.io.size())
            let snapshot = try store.snapshot()
            live.append(try #require(try snapshot.historyRecord(version: version)).liveBytes)
            snapshot.close()
        }
        let inspection = try StoreInspection.inspect(store)
        #expect(inspection.problems.isEmpty, "\(inspection.problems.prefix(3))")
        #expect(LedgerModel.same(inspection.contents, contents))
        // The file stays within a small multiple of what the version uses:
        // each group's pages are recycled by the groups after it.
        for (size, used) in zip(sizes, live).dropFirst(5) {
            #expect(size <= 3 * used + 64 * 4096, "the file grew past its live data: \(sizes) live \(live)")
        }
        print("GroupedCommitTests: file size over 40 groups: \(sizes.first ?? 0) → \(sizes[10]) → \(sizes[39]) bytes; "
              + "live \(live.first ?? 0) → \(live[10]) → \(live[39])")
    }

    /// A durable commit on top of pending deferred ones makes the whole group
    /// durable with its one sync; the next commit goes to the other slot.
    @Test func aDurableCommitOnTopOfPendingOnesMakesThemDurable() throws {
        let dir = try TemporaryDirectory(prefix: "firn-grouped-durable", inMemory: true)
        let path = dir.file("durable.firn")
        let store = try Store.open(path, options: .pageCommits)
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        let d = try store.durableVersion
        for i in 1...3 {
            let txn = try store.beginWriteBlocking()
            try txn.tree("t")?.put([UInt8(i)], [UInt8(i)])
            try txn.commit(durability: .deferred)
        }
        #expect(try store.durableVersion == d)
        let n = try store.write { txn -> UInt64 in
            try txn.tree("t")?.put([4], [4])
            return txn.version
        }
        #expect(try store.durableVersion == n)
        let slots = try store.readSlots()
        #expect(slots.current?.version == n && slots.current?.unsealed == false && slots.current?.durableBase == d)
        #expect(slots.previous?.version == d && slots.rejected == nil)
        #expect(slots.relationDefect == nil)
        store.close()
        unlink(path + ".lock")
        let reopened = try Store.open(path, options: .pageCommits)
        defer { reopened.close() }
        #expect(try reopened.currentVersion == n && reopened.openCheck.rejected == nil)
        #expect(try StoreInspection.inspect(reopened).findings.isEmpty)
        let snapshot = try reopened.snapshot()
        defer { snapshot.close() }
        #expect(try snapshot.tree("t")?.count == 5)
    }

    /// A first opener (nobody else has the database open) accepts the
    /// newest record that checks out, which after a crash of the writer's
    /// process may exist only in the page cache: it syncs the file before
    /// it claims that version durable, and not after.
    @Test func theFirstOpenerSyncsBeforeItClaimsTheVersionDurable() throws {
        let dir = try TemporaryDirectory(prefix: "firn-first-open-sync", inMemory: true)
        let path = dir.file("first.firn")
        let writer = try Store.open(path, options: .pageCommits)
        let v = try writer.write { txn -> UInt64 in
            try txn.tree("t")?.put([1], [1])
            return txn.version
        }
        writer.close()
        unlink(path + ".lock")
        final class Probe: @unchecked Sendable { var io: RecordingIO? }
        /// Opens `path` with its I/O recorded into the probe.
        func openRecorded() throws -> (Store, Probe) {
            let probe = Probe()
            var options = StoreOptions.pageCommits
            options.wrapIO = { base in
                let io = RecordingIO(base)
                probe.io = io
                return io
            }
            return (try Store.open(path, options: options), probe)
        }
        let (opener, probe) = try openRecorded()
        defer { opener.close() }
        let syncs = probe.io?.operations.filter { if case .sync = $0 { true } else { false } }.count
        #expect(syncs == 1)
        #expect(try opener.durableVersion == v && opener.currentVersion == v)
        // A later opener trusts the published version: no second sync.
        let (second, laterProbe) = try openRecorded()
        defer { second.close() }
        #expect(laterProbe.io?.operations.isEmpty == true)
    }

    /// `durableVersion` lags the latest version while a group is open, in
    /// this store and in another open of the same file; `waitForDurable`
    /// times out before the durability point and wakes at it.
    @Test func durableVersionAndWaitingForIt() throws {
        let dir = try TemporaryDirectory(prefix: "firn-grouped-wait", inMemory: true)
        let path = dir.file("wait.firn")
        let store = try Store.open(path, options: .pageCommits)
        let other = try Store.open(path, options: .pageCommits)
        defer {
            other.close()
            store.close()
        }
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        let d = try store.durableVersion
        #expect(try d == (store.currentVersion))
        let txn = try store.beginWriteBlocking()
        try txn.tree("t")?.put([1], [1])
        let n = try txn.commit(durability: .deferred)
        #expect(try store.currentVersion == n && (store.durableVersion) == d)
        #expect(try other.currentVersion == n && (other.durableVersion) == d)
        #expect(try other.waitForDurable(version: n, timeout: .milliseconds(20)) == d)
        let waiter = BackgroundThread { try? other.waitForDurable(version: n, timeout: .seconds(10)) }
        usleep(50_000)
        #expect(try store.sync() == n)
        #expect(waiter.join() == n)
        #expect(try other.durableVersion == n)
        // Nothing pending: sync returns at once with the same version.
        #expect(try other.sync() == n)
    }

    /// A slot pair that is not a version and its durable base is a defect;
    /// a record whose distance reaches below version 1 is not valid.
    @Test func theDistanceFieldIsCheckedBeforeUse() throws {
        var record = CommitRecord(pageSize: 4096, version: 5, timestampNanoseconds: 0, logicalPageCount: 2,
                                  catalogRoot: .none, spaceRoot: .none, bytesWritten: 0, freePages: 0, retiredPages: 0,
                                  unsealed: true, distance: 3)
        var decoded = try record.encoded().withUnsafeBytes { try CommitRecord.decode($0).get() }
        #expect(decoded == record && decoded.durableBase == 2 && decoded.unsealed)
        record.storedDistance = 5
        #expect(throws: CommitRecord.Defect.self) { try record.encoded().withUnsafeBytes { try CommitRecord.decode($0).get() } }
        record.storedDistance = 0
        decoded = try record.encoded().withUnsafeBytes { try CommitRecord.decode($0).get() }
        #expect(decoded.durableBase == 4)
        let older = CommitRecord(pageSize: 4096, version: 3, timestampNanoseconds: 0, logicalPageCount: 2,
                                 catalogRoot: .none, spaceRoot: .none, bytesWritten: 0, freePages: 0, retiredPages: 0)
        let pair = CommitSlots(slots: [.success(older), .success(record)], pageSize: 4096)
        #expect(pair.relationDefect != nil)
        record.storedDistance = 2
        #expect(CommitSlots(slots: [.success(older), .success(record)], pageSize: 4096).relationDefect == nil)
        #expect(CommitSlots(slots: [.success(record), .success(older)], pageSize: 4096).relationDefect == nil)
    }
}
