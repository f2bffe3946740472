import Testing
@testable import FirnCore
import FirnTestSupport

/// A process following a log another appends to (`LogChain`): each version
/// wanted is read once its frame is whole, reads exactly as the writer's
/// transaction left things, and a frame still being written is read again
/// once it is complete.
@Suite struct CommitLogChainTests {
    /// A FileIO over one fixed buffer: the appender writes where the chain
    /// reads, as a writer's `pwrite` shows in another process's map.
    /// Offsets are the file's: the buffer holds the region, from `regionOffset`.
    final class SharedRegionIO: FileIO, @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer
        let regionOffset: Int
        init(bytes: Int, regionOffset: Int) {
            self.regionOffset = regionOffset
            buffer = .allocate(byteCount: bytes, alignment: 4096)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
        }
        deinit { buffer.deallocate() }
        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(buffer) }
        var path: String { "shared-region" }
        var descriptor: Int32 { -1 }
        func write(_ data: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
            let start = Int(offset) - regionOffset
            UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + data.count]).copyMemory(from: data)
        }
        func read(into target: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
            let start = Int(offset) - regionOffset
            let count = min(target.count, buffer.count - start)
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<start + count]))
            return count
        }
        func sync() throws(FirnError) {}
        func extend(to size: UInt64) throws(FirnError) {}
        func size() throws(FirnError) -> UInt64 { UInt64(buffer.count) }
        func close() {}
    }

    struct Setup {
        let directory: TemporaryDirectory
        let harness: LogOverlayHarness
        let io: SharedRegionIO
        let region: LogRegion
        let chain: LogChain
        let appender: LogAppender
    }

    static func setup(pages: UInt64 = 32) throws -> Setup {
        let directory = try TemporaryDirectory(inMemory: true)
        let harness = try LogOverlayHarness(path: directory.file("log.firn"), initial: LogOverlayHarness.initial())
        let geometry = harness.store.geometry
        let io = SharedRegionIO(bytes: Int(pages) * geometry.pageSize, regionOffset: 500 * geometry.pageSize)
        let region = LogRegion(startPage: 500, pageCount: pages, epoch: harness.checkpoint.version, seed: 0x5EED)
        let checkpoint = harness.checkpoint
        let chain = LogChain(region: region, geometry: geometry, countLimit: 1 << 40,
                             checkpointHasTree: { (name) throws(FirnError) in try checkpoint.tree(name) != nil })
        return Setup(directory: directory, harness: harness, io: io, region: region, chain: chain,
                     appender: LogAppender.fresh(io: io, region: region, geometry: geometry))
    }

    static func snapshot(_ setup: Setup, _ version: UInt64) throws -> Snapshot? {
        guard let link = try setup.chain.link(version, bytes: setup.io.bytes, owner: setup.io) else { return nil }
        return setup.harness.snapshot(link)
    }

    @Test func eachVersionReadsAsItsTransactionLeftThings() throws {
        let setup = try Self.setup()
        var rng = SeededGenerator(seed: 21)
        var models: [UInt64: LogOverlayHarness.Model] = [setup.region.epoch: setup.harness.model]
        var model = setup.harness.model
        var version = setup.region.epoch
        for transaction in 0..<10 {
            let base = try #require(try Self.snapshot(setup, version))
            let changes = LogChangeSet(base: base)
            for _ in 0..<(1 + rng.below(6)) {
                let tree = LogOverlayHarness.trees[Int(rng.below(UInt64(LogOverlayHarness.trees.count)))]
                if rng.chance(1, in: 10) {
                    if try changes.createTree(tree) { model[tree] = [:] }
                    continue
                }
                guard model[tree] != nil else { continue }
                let key = LogOverlayHarness.key(&rng), value = LogOverlayHarness.value(&rng)
                _ = try withBytes(key) { (k) throws(FirnError) in try withBytes(value) { (v) throws(FirnError) in try changes.put(tree, k, v) } }
                model[tree]?[key] = value
            }
            // A seal now and then, between commits: the chain passes over it.
            version = try setup.appender.appendCommit(payload: changes.payload(), deferred: transaction % 3 == 1, timestampNanoseconds: 1)
            if transaction % 3 == 1 { try setup.appender.seal(timestampNanoseconds: 2) }
            models[version] = model
            #expect(try Self.snapshot(setup, version + 1) == nil, "a version not written yet")
        }
        #expect(setup.chain.newestVersion == version && setup.chain.durableVersion == version)
        for (version, model) in models.sorted(by: { $0.key < $1.key }) {
            let snapshot = try #require(try Self.snapshot(setup, version))
            #expect(snapshot.version == version)
            try LogOverlayHarness.expectReads(snapshot, model, &rng)
        }
        #expect(try Self.snapshot(setup, setup.region.epoch - 1) == nil)
    }

    @Test func aFrameStillBeingWrittenIsReadOnceWhole() throws {
        let setup = try Self.setup()
        let first = try setup.appender.appendCommit(
            payload: Payloads.encode([.put(tree: "a", key: [1], value: [1]), .count(tree: "a", entries: 41)]),
            deferred: false, timestampNanoseconds: 1)
        // The next frame written into a copy, then half of it copied in: torn.
        let scratch = SharedRegionIO(bytes: setup.io.buffer.count, regionOffset: setup.io.regionOffset)
        scratch.buffer.copyMemory(from: setup.io.bytes)
        let next = try #require(LogAppender.resume(
            io: scratch, region: setup.region, geometry: setup.harness.store.geometry,
            scan: LogScan.scan(setup.region, bytes: scratch.bytes, geometry: setup.harness.store.geometry), acceptOpenGroup: true))
        let second = try next.appendCommit(
            payload: Payloads.encode([.put(tree: "b", key: [2], value: [UInt8](repeating: 7, count: 6000)),
                                                    .count(tree: "b", entries: 26)]),
            deferred: false, timestampNanoseconds: 2)
        let pageSize = setup.harness.store.geometry.pageSize
        let frameStart = pageSize // the first frame is one page
        func copyPage(at offset: Int) {
            UnsafeMutableRawBufferPointer(rebasing: setup.io.buffer[offset..<offset + pageSize])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: scratch.bytes[offset..<offset + pageSize]))
        }
        copyPage(at: frameStart)
        #expect(try Self.snapshot(setup, first) != nil)
        #expect(try Self.snapshot(setup, second) == nil)
        if case .torn = setup.chain.end {} else { Issue.record("expected a torn end, got \(setup.chain.end)") }
        // The rest arrives: read again from the same page.
        copyPage(at: frameStart + pageSize)
        let snapshot = try #require(try Self.snapshot(setup, second))
        #expect(try snapshot.tree("b")?.get([2])?.array == [UInt8](repeating: 7, count: 6000))
        #expect(try snapshot.tree("a")?.get([1])?.array == [1])
    }

    @Test func aFrameNoWriterMakesIsCorruptNamingItsPage() throws {
        let setup = try Self.setup()
        try setup.appender.appendCommit(
            payload: Payloads.encode([.put(tree: "a", key: [1], value: [1]), .count(tree: "a", entries: 41)]),
            deferred: false, timestampNanoseconds: 1)
        let bad = try setup.appender.appendCommit(
            payload: Payloads.encode([.put(tree: "missing", key: [1], value: [1]), .count(tree: "missing", entries: 1)]),
            deferred: false, timestampNanoseconds: 1)
        #expect {
            try Self.snapshot(setup, bad)
        } throws: { error in
            guard case let .corrupt(_, page, version, detail) = error as? FirnError else { return false }
            return page == setup.region.startPage + 1 && version == bad && detail.contains("tree \"missing\", which does not exist")
        }
    }
}
