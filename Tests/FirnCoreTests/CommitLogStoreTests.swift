import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Commits through the commit log (`StoreOptions.commitLogPages`): frames
/// for small commits, checkpoints when the region fills or a transaction
/// is large, read by this store, by another store on the same file, after
/// reopening, and by snapshots pinned across checkpoints.
@Suite struct CommitLogStoreTests {
    typealias Model = LogOverlayHarness.Model

    /// One random transaction through the public API, the model following.
    static func randomTransaction(_ store: Store, _ model: inout Model, _ rng: inout SeededGenerator) throws {
        var next = model
        try store.write { txn in
            for _ in 0..<(1 + rng.below(8)) {
                let name = LogOverlayHarness.trees[Int(rng.below(UInt64(LogOverlayHarness.trees.count)))]
                switch rng.below(24) {
                case 0:
                    #expect(try txn.dropTree(name) == (next[name] != nil))
                    next[name] = nil
                case 1:
                    _ = try txn.tree(name)
                    if next[name] == nil { next[name] = [:] }
                case 2...7:
                    guard let tree = try txn.tree(name, create: false) else { continue }
                    let key = LogOverlayHarness.key(&rng)
                    #expect(try tree.delete(key) == (next[name]?[key] != nil))
                    next[name]?[key] = nil
                default:
                    guard let tree = try txn.tree(name, create: false) else { continue }
                    let key = LogOverlayHarness.key(&rng), value = LogOverlayHarness.value(&rng)
                    #expect(try tree.get(key) == next[name]?[key])
                    #expect(try tree.put(key, value) == (next[name]?[key] == nil))
                    next[name]?[key] = value
                    #expect(tree.count == UInt64(next[name]?.count ?? 0))
                }
            }
        }
        model = next
    }

    static func records(_ store: Store) throws -> [CommitRecord] {
        try CommitSlots.read(store.io).slots.compactMap { try? $0.get() }
    }

    @Test(arguments: [31, 32]) func commitsReadBackThroughFramesAndCheckpoints(seed: UInt64) throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let path = directory.file("log.firn")
        let store = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        let other = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        var rng = SeededGenerator(seed: seed)
        var model: Model = [:]
        var pinned: [(Snapshot, Model)] = []
        var checkpoints = Set<UInt64>()
        for step in 0..<120 {
            try Self.randomTransaction(store, &model, &rng)
            let snapshot = try store.snapshot()
            try LogOverlayHarness.expectReads(snapshot, model, &rng)
            // Another store on the file reads the same, through its own chain.
            let seen = try other.snapshot()
            #expect(seen.version == snapshot.version)
            if step % 7 == 0 { try LogOverlayHarness.expectReads(seen, model, &rng) }
            if step % 25 == 3 { pinned.append((snapshot, model)) }
            for record in try Self.records(store) where record.logRegion != nil { checkpoints.insert(record.version) }
        }
        // Both kinds of commit happened: frames (versions past their
        // checkpoint) and several checkpoints.
        #expect(checkpoints.count >= 3, "checkpoints: \(checkpoints.sorted())")
        #expect(try store.snapshot().log != nil || checkpoints.contains(try store.currentVersion))
        // Pinned snapshots still read their versions, across checkpoints.
        for (snapshot, expected) in pinned { try LogOverlayHarness.expectReads(snapshot, expected, &rng) }
        let report = Verifier.verify(try store.snapshot(), slots: try store.readSlots())
        #expect(report.findings.isEmpty, "\(report.findings)")
        pinned.removeAll()
        // Reopened (a new session: the first opener chooses from the log).
        let version = try store.currentVersion
        store.close()
        other.close()
        let reopened = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        #expect(try reopened.currentVersion == version)
        try LogOverlayHarness.expectReads(try reopened.snapshot(), model, &rng)
        // And read by a store that does not write to the log: the next
        // commit is a checkpoint without a region.
        reopened.close()
        let plain = try Store.open(path, options: .pageCommits)
        try LogOverlayHarness.expectReads(try plain.snapshot(), model, &rng)
        try Self.randomTransaction(plain, &model, &rng)
        try LogOverlayHarness.expectReads(try plain.snapshot(), model, &rng)
        #expect(try Self.records(plain).contains { $0.version == (try plain.currentVersion) && $0.logRegion == nil })
        let after = Verifier.verify(try plain.snapshot(), slots: try plain.readSlots())
        #expect(after.findings.isEmpty, "\(after.findings)")
    }

    /// The default is the log; a region size out of range is refused
    /// before any file is made, and the smallest one still commits.
    /// A `get` that finds a key absent lets the put of that same key right
    /// after skip its lookup (`LogChangeSet.noteAbsent`): only that key, in
    /// that tree, and only until the next change. Every put's "new key"
    /// answer and every count stay exact around it.
    @Test func aPutAfterAMissOfTheSameKeyIsNewAndAnyOtherPutLooksItselfUp() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("db.firn"), options: StoreOptions.commitLog(pages: 16))
        defer { store.close() }
        let a = Array("a".utf8), b = Array("b".utf8), c = Array("c".utf8)
        try store.write { txn in
            try #require(try txn.tree("one")).put(a, [1])
            try #require(try txn.tree("two")).put(b, [2])
        }
        let txn = try store.beginWriteBlocking()
        let one = try #require(try txn.tree("one")), two = try #require(try txn.tree("two"))
        // A miss of another key: the put of an existing key is no new key.
        #expect(try one.get(c) == nil)
        #expect(try !one.put(a, [3]))
        // A miss of the key in another tree: the put of it here, where it is, neither.
        #expect(try one.get(b) == nil)
        #expect(try !two.put(b, [4]))
        // The miss of the key itself: new, once; the next put of it is not.
        #expect(try one.get(c) == nil)
        #expect(try one.put(c, [5]))
        #expect(try !one.put(c, [6]))
        // A change between the miss and the put: the put looks again.
        #expect(try two.get(c) == nil)
        #expect(try two.put(a, [7]))
        #expect(try !two.put(a, [8]))
        #expect(try two.put(c, [9]))
        #expect(one.count == 2 && two.count == 3)
        try txn.commit()
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        #expect(try snapshot.tree("one")?.count == 2 && snapshot.tree("two")?.count == 3)
        #expect(try snapshot.tree("one")?.get(c).map { Array($0.bytes) } == [6])
        #expect(try snapshot.tree("two")?.get(a).map { Array($0.bytes) } == [8])
    }

    @Test func regionSizesOutOfRangeAreRefusedAndTheSmallestCommits() throws {
        #expect(StoreOptions().commitLogPages == 128)
        let directory = try TemporaryDirectory()
        for pages in [StoreOptions.commitLogPageRange.upperBound + 1, UInt32.max] {
            var options = StoreOptions()
            options.commitLogPages = pages
            #expect(throws: FirnError.self) { _ = try Store.open(directory.file("bad.firn"), options: options) }
            #expect(!FileManager.default.fileExists(atPath: directory.file("bad.firn")))
        }
        let store = try Store.open(directory.file("one.firn"), options: StoreOptions.commitLog(pages: 1))
        defer { store.close() }
        for n in 0..<20 { try store.write { txn in try txn.tree("t")?.put([UInt8(n)], Array(repeating: UInt8(n), count: 300)) } }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        #expect(try snapshot.tree("t")?.count == 20)
    }

    @Test func aSmallCommitIsOneFramePageAndALargeOneACheckpoint() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("log.firn"), options: StoreOptions.commitLog(pages: 64))
        // The first commit checkpoints: the file has no region yet.
        try store.write { txn in try txn.tree("t")?.put([1], [1]) }
        let first = try #require(try Self.records(store).first { $0.version == (try store.currentVersion) })
        let region = try #require(first.logRegion)
        #expect(region.pageCount == 64)
        let fileSize = try store.io.size()
        for n in 0..<10 { try store.write { txn in try txn.tree("t")?.put([UInt8(n)], [UInt8](repeating: 9, count: 100)) } }
        // Ten frames: no record written, the file did not grow.
        #expect(try Self.records(store).map(\.version).max() == first.version)
        #expect(try store.currentVersion == first.version + 10)
        #expect(try store.io.size() == fileSize)
        // A transaction larger than an eighth of the region checkpoints.
        try store.write { txn in
            for n in 0..<200 { try txn.tree("t")?.put([0xAA, UInt8(n)], [UInt8](repeating: 1, count: 200)) }
        }
        let version = try store.currentVersion
        #expect(try Self.records(store).contains { $0.version == version && $0.logRegion != nil })
        #expect(try store.snapshot().tree("t")?.count == 10 + 200)
    }

    @Test func aCopyOfAVersionBetweenCheckpointsHoldsItsFrames() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("log.firn"), options: StoreOptions.commitLog(pages: 64))
        var rng = SeededGenerator(seed: 41)
        var model: Model = [:]
        for _ in 0..<20 { try Self.randomTransaction(store, &model, &rng) }
        // Values too long for a leaf, carried in a frame.
        try store.write { txn in try txn.tree("big")?.put([7], [UInt8](repeating: 3, count: 3000)) }
        model["big"] = [[7]: [UInt8](repeating: 3, count: 3000)]
        let snapshot = try store.snapshot()
        #expect(snapshot.log != nil, "the last commit was a frame")
        try store.writeCopy(of: snapshot, to: directory.file("copy.firn"))
        let copy = try Store.open(directory.file("copy.firn"))
        try LogOverlayHarness.expectReads(try copy.snapshot(), model, &rng)
        #expect(try copy.currentVersion == snapshot.version)
        #expect(try copy.snapshot().tree("big")?.get([7])?.array == [UInt8](repeating: 3, count: 3000))
        let report = Verifier.verify(try copy.snapshot(), slots: try copy.readSlots())
        #expect(report.findings.isEmpty, "\(report.findings)")
    }

    /// Appends a frame the way a writer does, without publishing it: what a
    /// writer killed between its frame and its publication leaves.
    static func appendUnpublished(_ store: Store, key: [UInt8], deferred: Bool) throws -> UInt64 {
        // As a writer would: under the writer lock, released without a
        // publication (a writer that died right after its frame).
        let lockFile = try #require(store.lockFile)
        let lease = try lockFile.lockWriter(timeout: .seconds(5))
        defer { lockFile.unlockWriter(lease) }
        let record = try #require(try Self.records(store).max { $0.version < $1.version })
        let region = try #require(record.logRegion)
        let scan = try #require(try store.log.scan(of: record))
        let appender = try #require(LogAppender.resume(io: store.io, region: region, geometry: store.geometry,
                                                        scan: scan, acceptOpenGroup: true))
        let entries = UInt64(try store.snapshot().tree("t")?.count ?? 0) + 1
        return try appender.appendCommit(
            payload: Payloads.encode([.put(tree: "t", key: key, value: [0xEE]), .count(tree: "t", entries: entries)]),
            deferred: deferred, timestampNanoseconds: 1)
    }

    @Test func aFramePastThePublishedVersionIsNeverChainedTo() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("log.firn"), options: StoreOptions.commitLog(pages: 64))
        for n in 0..<3 { try store.write { txn in try txn.tree("t")?.put([UInt8(n)], [1]) } }
        let published = try store.currentVersion
        let orphan = try Self.appendUnpublished(store, key: [0xAA], deferred: false)
        #expect(orphan == published + 1)
        #expect(try store.currentVersion == published, "not published")
        // The next commit is a checkpoint on the published version: the
        // orphan's change is not in it, and nothing follows the orphan.
        try store.write { txn in try txn.tree("t")?.put([0xBB], [2]) }
        let version = try store.currentVersion
        #expect(version == published + 1)
        #expect(try Self.records(store).contains { $0.version == version && $0.logRegion != nil })
        let snapshot = try store.snapshot()
        #expect(try snapshot.tree("t")?.get([0xAA]) == nil)
        #expect(try snapshot.tree("t")?.get([0xBB])?.array == [2])
        #expect(try snapshot.tree("t")?.count == 4)
    }

    @Test func aFirstOpenerDropsAnOpenGroupAndTheNextCommitCheckpoints() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let path = directory.file("log.firn")
        var store = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        for n in 0..<3 { try store.write { txn in try txn.tree("t")?.put([UInt8(n)], [1]) } }
        let durable = try store.currentVersion
        // A deferred frame, published, then every store closed: a power
        // loss may have taken it, so the next session starts at the durable one.
        let deferred = try Self.appendUnpublished(store, key: [0xAA], deferred: true)
        store.lockFile?.publish(version: deferred)
        #expect(try store.snapshot().tree("t")?.get([0xAA]) != nil, "visible while the session lasts")
        store.close()
        store = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        #expect(try store.currentVersion == durable)
        #expect(try store.snapshot().tree("t")?.get([0xAA]) == nil)
        try store.write { txn in try txn.tree("t")?.put([0xBB], [2]) }
        let version = try store.currentVersion
        #expect(try Self.records(store).contains { $0.version == version && $0.logRegion != nil })
        #expect(try store.snapshot().tree("t")?.get([0xAA]) == nil)
        #expect(try store.snapshot().tree("t")?.count == 4)
    }

    @Test func regionsAreReusedAndEachFillsBeforeTheNextCheckpoint() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.open(directory.file("log.firn"), options: StoreOptions.commitLog(pages: 16))
        var checkpoints = Set<UInt64>()
        var regionStarts = Set<UInt64>()
        for n in 0..<300 {
            try store.write { txn in try txn.tree("t")?.put(Array("key\(n % 50)".utf8), [UInt8](repeating: UInt8(n & 0xFF), count: 60)) }
            for record in try Self.records(store) {
                if let region = record.logRegion {
                    checkpoints.insert(record.version)
                    regionStarts.insert(region.startPage)
                }
            }
        }
        // A region of 16 pages holds 16 one-page frames: a checkpoint about
        // every 17 commits. A new region holds the frames of an older
        // checkpoint (regions are reused): they end the scan like other
        // data, and the first frame goes there.
        #expect(checkpoints.count <= 300 / 17 + 2, "\(checkpoints.count) checkpoints")
        #expect(checkpoints.count >= 300 / 17 - 1, "\(checkpoints.count) checkpoints")
        // Freed regions come back whole: a few places, not one per checkpoint.
        #expect(regionStarts.count <= 4, "regions at \(regionStarts.sorted())")
        let report = Verifier.verify(try store.snapshot(), slots: try store.readSlots())
        #expect(report.findings.isEmpty, "\(report.findings)")
    }

    // MARK: grouped commits

    static func put(_ store: Store, _ n: Int, durability: CommitDurability) throws {
        let txn = try store.beginWriteBlocking()
        try txn.tree("t")?.put(Array("key\(n)".utf8), [UInt8(n & 0xFF)])
        try txn.commit(durability: durability)
    }

    /// A store on "log.firn" in `directory` (a 64-page region) with a
    /// durable commit (key 0), then a group of `deferred` deferred ones
    /// (keys 1…); the durable commit's version.
    static func openWithGroup(in directory: TemporaryDirectory, deferred: Int) throws -> (store: Store, path: String, durable: UInt64) {
        let path = directory.file("log.firn")
        let store = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        try Self.put(store, 0, durability: .durable)
        let durable = try store.currentVersion
        for n in 1...deferred { try Self.put(store, n, durability: .deferred) }
        return (store, path, durable)
    }

    @Test func aSyncSealsTheGroupAndTheNextSessionKeepsIt() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let (opened, path, durable) = try Self.openWithGroup(in: directory, deferred: 5)
        var store = opened
        #expect(try store.currentVersion == durable + 5)
        #expect(try store.durableVersion == durable, "the group is open")
        #expect(try store.snapshot().tree("t")?.count == 6, "visible at once")
        let records = try Self.records(store).map(\.version)
        #expect(try store.sync() == durable + 5)
        #expect(try store.durableVersion == durable + 5)
        #expect(try Self.records(store).map(\.version) == records, "a seal frame, not a checkpoint")
        let newest = try #require(try Self.records(store).max { $0.version < $1.version })
        let scan = try #require(try store.log.scan(of: newest))
        #expect(scan.frames.last?.header.kind == .seal && scan.durableVersion == durable + 5)
        store.close()
        store = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        #expect(try store.currentVersion == durable + 5)
        #expect(try store.snapshot().tree("t")?.count == 6)
    }

    @Test func aGroupNeverSealedIsGoneWholeInTheNextSessionAndADurableFrameSealsOne() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let (opened, path, durable) = try Self.openWithGroup(in: directory, deferred: 3)
        var store = opened
        store.close()
        // The next session's first opener cannot tell a power loss from a
        // clean exit: the group never reached its durability point.
        store = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        #expect(try store.currentVersion == durable)
        #expect(try store.snapshot().tree("t")?.count == 1)
        // A durable frame after deferred ones makes the whole group durable.
        try Self.put(store, 10, durability: .durable)
        for n in 11...12 { try Self.put(store, n, durability: .deferred) }
        try Self.put(store, 13, durability: .durable)
        let version = try store.currentVersion
        #expect(try store.durableVersion == version)
        store.close()
        store = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        #expect(try store.currentVersion == version)
        #expect(try store.snapshot().tree("t")?.count == 5)
    }

    /// A value for `key` whose one-put frame into "t" spans exactly `span` bytes.
    static func value(spanning span: Int, key: [UInt8]) -> [UInt8] {
        func payloadLength(_ valueLength: Int) -> Int {
            var builder = LogPayload.Builder()
            builder.append(.put(tree: "t", key: key, value: [UInt8](repeating: 5, count: valueLength)))
            builder.append(.count(tree: "t", entries: 1))
            return builder.bytes.count
        }
        return [UInt8](repeating: 5, count: span - LogFrameHeader.size - payloadLength(0))
    }

    @Test func aDeferredFrameLeavesRoomForItsSealSoASyncNeverCheckpoints() throws {
        for sealAfter in [7, 8] {
            let directory = try TemporaryDirectory(inMemory: true)
            let store = try Store.open(directory.file("log.firn"), options: StoreOptions.commitLog(pages: 4))
            try Self.put(store, 0, durability: .durable)
            let checkpoint = try store.currentVersion
            // Frames of 2 KiB each: seven leave 2 KiB of the 16 KiB region.
            for n in 1...7 {
                let txn = try store.beginWriteBlocking()
                let key = Array("key\(n)".utf8)
                try txn.tree("t")?.put(key, Self.value(spanning: 2048, key: key))
                try txn.commit(durability: .deferred)
                #expect(try Self.records(store).map(\.version).max() == checkpoint, "frame \(n) checkpointed")
            }
            if sealAfter == 7 {
                // The seal goes into the room left: no checkpoint.
                #expect(try store.sync() == checkpoint + 7)
                #expect(try Self.records(store).map(\.version).max() == checkpoint)
                #expect(try store.durableVersion == checkpoint + 7)
            } else {
                // An eighth would leave no room for a seal: it checkpoints,
                // durable, over the open group.
                let txn = try store.beginWriteBlocking()
                let key = Array("key8".utf8)
                try txn.tree("t")?.put(key, Self.value(spanning: 2048, key: key))
                try txn.commit(durability: .deferred)
                #expect(try Self.records(store).contains { $0.version == checkpoint + 8 && $0.logRegion != nil })
                #expect(try store.durableVersion == checkpoint + 8)
            }
            let version = try store.currentVersion
            store.close()
            let reopened = try Store.open(directory.file("log.firn"), options: StoreOptions.commitLog(pages: 4))
            #expect(try reopened.currentVersion == version)
            #expect(try reopened.snapshot().tree("t")?.count == UInt64(sealAfter + 1))
            reopened.close()
        }
    }

    /// A store goes on from where its own last frame left the log only
    /// while no other writer came in between: two stores on one file (each
    /// its own lock file handle, as two processes are) take turns, each
    /// turn a few frames, durable and deferred, and a sync now and then.
    /// Were a store to reuse its appender after the other's frames, its
    /// next frame would overwrite them: acknowledged commits lost, and the
    /// chain broken for every reader.
    @Test func aStoreContinuesItsOwnFramesOnlyWhileNoOtherWriterCameBetween() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let path = directory.file("log.firn")
        let first = try Store.open(path, options: StoreOptions.commitLog(pages: 32))
        let second = try Store.open(path, options: StoreOptions.commitLog(pages: 32))
        var rng = SeededGenerator(seed: 77)
        var written = 0
        for turn in 0..<60 {
            let store = turn % 2 == 0 ? first : second
            for _ in 0..<(1 + Int(rng.below(3))) {
                try Self.put(store, written, durability: rng.chance(1, in: 2) ? .durable : .deferred)
                written += 1
                // The store that committed sees every commit so far; the
                // other one (as another process) a deferred commit once its
                // frame is written, within the kept byte's 2 ms idle watch
                // at the latest (FORMAT.md 8.1).
                #expect(try store.snapshot().tree("t")?.count == UInt64(written))
                let other = store === first ? second : first
                #expect(try eventually(within: .seconds(10)) {
                    try other.snapshot().tree("t")?.count == UInt64(written)
                })
            }
            if rng.chance(1, in: 5) { _ = try store.sync() }
        }
        _ = try first.sync()
        let version = try first.currentVersion
        first.close()
        second.close()
        let reopened = try Store.open(path, options: StoreOptions.commitLog(pages: 32))
        defer { reopened.close() }
        #expect(try reopened.currentVersion == version)
        let tree = try #require(try reopened.snapshot().tree("t"))
        #expect(tree.count == UInt64(written))
        for n in 0..<written { #expect(try tree.get(Array("key\(n)".utf8)) != nil, "key\(n) lost") }
    }

    @Test func framesOfAStoreThatDoesNotSyncSurviveTheProcess() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let path = directory.file("log.firn")
        var options = StoreOptions.commitLog(pages: 64)
        options.durability = .none
        var store = try Store.open(path, options: options)
        for n in 0..<5 { try Self.put(store, n, durability: .durable) }
        let version = try store.currentVersion
        store.close()
        store = try Store.open(path, options: options)
        #expect(try store.currentVersion == version)
        #expect(try store.snapshot().tree("t")?.count == 5)
    }

    /// A checkpoint writes zeros over the pages of its new region that no
    /// version used before (the file grew for them), so each frame's write
    /// is an overwrite and the sync after it needs no journal commit for a
    /// first write into reserved blocks (docs/COMMIT-PATH.md "Checkpoints").
    /// Pages of the region that earlier versions used are not written.
    @Test func aCheckpointWritesZerosOverItsRegionsUnusedPages() throws {
        let dir = try TemporaryDirectory(prefix: "firn-region-zeros", inMemory: true)
        var options = StoreOptions()
        options.wrapIO = { RecordingIO($0) }
        let store = try Store.open(dir.file("zeros.firn"), options: options)
        defer { store.close() }
        let recorder = try #require(store.io as? RecordingIO)
        let pageSize = UInt64(store.geometry.pageSize)
        func zeroedPages(from start: Int) -> Set<UInt64> {
            var pages = Set<UInt64>()
            for case let .write(offset, bytes) in recorder.operations[start...] where bytes.allSatisfy({ $0 == 0 }) {
                for page in offset / pageSize..<(offset + UInt64(bytes.count)) / pageSize { pages.insert(page) }
            }
            return pages
        }
        let before = try #require(try CommitSlots.read(store.io).newest)
        let start = recorder.count
        try store.write { txn in try #require(try txn.tree("t")).put([1], [1]) }
        let record = try #require(try CommitSlots.read(store.io).newest)
        let region = try #require(record.logRegion)
        #expect(record.version == before.version + 1, "the first commit checkpoints")
        let end = region.startPage + region.pageCount
        let fresh = min(max(region.startPage, before.logicalPageCount), end)..<end
        #expect(fresh.count == Int(region.pageCount), "a new file's first region lies past every page used")
        let zeroed = zeroedPages(from: start)
        #expect(fresh.allSatisfy { zeroed.contains($0) }, "\(fresh.filter { !zeroed.contains($0) }.count) of the region's \(fresh.count) new pages not written with zeros")
        // Frames after it write over those pages and read back.
        for n in 2...5 as ClosedRange<UInt8> { try store.write { txn in try #require(try txn.tree("t")).put([n], [n]) } }
        #expect(try CommitSlots.read(store.io).newest == record)
        #expect(try store.snapshot().tree("t")?.count == 5)
    }
}
