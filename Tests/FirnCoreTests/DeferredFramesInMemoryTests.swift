import Foundation
import Testing
@testable import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// A deferred commit's frame waits in the writer's memory until its group's
/// durability point, the writer byte going to another writer, the idle
/// watch's 2 ms, or 64 KiB of frames (FORMAT.md 8.1; docs/COMMIT-PATH.md "Grouped commits and durability").
/// The writer's own store reads it at once; other processes (here, other
/// stores of this process, each with its own lock file handle) when it is
/// written. The appender's kept frames reach the file as the same bytes
/// frame-at-a-time writes would have stored, with one write.
@Suite struct DeferredFramesInMemoryTests {
    static let hour: UInt64 = 3_600_000_000_000

    /// `path` opened with its kept byte not let go for idleness within the
    /// hour (frames then wait until this test's own calls write them).
    static func openKeeping(_ path: String, options: StoreOptions = .commitLog(pages: 64)) throws -> Store {
        let store = try Store.open(path, options: options)
        store.group?.idleNanoseconds.store(hour, ordering: .relaxed)
        return store
    }

    /// A new file with a writer store (keeping its byte for the hour, or
    /// with the usual 2 ms idle watch) and another store on it, as another
    /// process: each its own lock file handle. `close()` closes both.
    final class Stores {
        let dir: TemporaryDirectory
        let path: String
        let writer: Store
        let other: Store

        init(_ name: String, idleWatch: Bool = false,
             options: StoreOptions = .commitLog(pages: 64)) throws {
            dir = try TemporaryDirectory(inMemory: true)
            path = dir.file(name)
            writer = idleWatch ? try Store.open(path, options: options)
                : try DeferredFramesInMemoryTests.openKeeping(path, options: options)
            other = try Store.open(path, options: options)
        }

        func close() {
            writer.close()
            other.close()
        }
    }

    static func put(_ store: Store, _ key: UInt8, _ durability: CommitDurability, bytes: Int = 1) throws -> UInt64 {
        let txn = try store.beginWriteBlocking(timeout: .seconds(10))
        try txn.tree("t")?.put([key], [UInt8](repeating: key, count: bytes))
        return try txn.commit(durability: durability)
    }

    static func value(_ store: Store, _ key: UInt8) throws -> [UInt8]? {
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return try snapshot.tree("t")?.get([key])?.array
    }

    /// The newest version whose frame is in the file, as a reader of the
    /// file finds it (a fresh scan, not the store's chain).
    static func newestInFile(_ path: String) throws -> UInt64 {
        var options = StoreOptions()
        options.readOnly = true
        let reader = try Store.open(path, options: options)
        defer { reader.close() }
        let record = try #require(try reader.readSlots().newest)
        return try reader.inspectLog(of: record)?.newestVersion ?? record.version
    }

    @Test func anotherProcessSeesADeferredCommitWhenItsFrameIsWritten() throws {
        let stores = try Stores("kept.firn")
        defer { stores.close() }
        let (path, writer, other) = (stores.path, stores.writer, stores.other)
        let base = try Self.put(writer, 0, .durable)
        let first = try Self.put(writer, 1, .deferred)
        let last = try Self.put(writer, 2, .deferred)
        // The writer reads its group at once; the file and the other store
        // do not have it yet.
        #expect(try writer.currentVersion == last)
        #expect(try Self.value(writer, 2) == [2])
        #expect(try other.currentVersion == base)
        #expect(try Self.value(other, 1) == nil)
        #expect(try Self.newestInFile(path) == base)
        #expect(try other.durableVersion == base)
        // The durability point writes the frames, seals them, publishes both.
        #expect(try writer.sync() == last)
        #expect(try other.currentVersion == last && other.durableVersion == last)
        #expect(try Self.value(other, 1) == [1] && Self.value(other, 2) == [2])
        #expect(try Self.newestInFile(path) == last)
        #expect(first == base + 1)
    }

    @Test func anIdleGroupsFramesAreWrittenByTheIdleWatch() throws {
        let stores = try Stores("idle.firn", idleWatch: true)
        defer { stores.close() }
        let (writer, other) = (stores.writer, stores.other)
        let base = try Self.put(writer, 0, .durable)
        let deferred = try Self.put(writer, 1, .deferred)
        // Published within the 2 ms watch (generously timed for a loaded
        // machine), not made durable by it.
        #expect(try other.waitForCommit(after: base, timeout: .seconds(20)) == deferred)
        #expect(try Self.value(other, 1) == [1])
        #expect(try other.durableVersion == base)
        #expect(try writer.sync() == deferred)
    }

    @Test func aWriterElsewhereBuildsOnTheKeptFrames() throws {
        let stores = try Stores("handover.firn")
        defer { stores.close() }
        let (writer, other) = (stores.writer, stores.other)
        _ = try Self.put(writer, 0, .durable)
        let deferred = try Self.put(writer, 1, .deferred)
        // The other writer takes the byte (from a sibling at once; another
        // process waits for the watch): the frames go to the file first.
        let txn = try other.beginWriteBlocking(timeout: .seconds(10))
        #expect(txn.baseVersion == deferred)
        #expect(try txn.tree("t")?.get([1]) == [1])
        try txn.tree("t")?.put([2], [2])
        let durable = try txn.commit()
        // A durable commit on top of the group is its durability point.
        #expect(try writer.currentVersion == durable && writer.durableVersion == durable)
        #expect(try Self.value(writer, 2) == [2] && Self.value(writer, 1) == [1])
    }

    /// A deferred frame the store's reading of the log did not take (here:
    /// the store dropped its chains, as it does for regions it no longer
    /// reads) is written and published at once: the store's own snapshots
    /// would look for it in the file.
    @Test func aFrameTheStoresChainDidNotTakeIsWrittenAtOnce() throws {
        let stores = try Stores("untaken.firn")
        defer { stores.close() }
        let (path, writer, other) = (stores.path, stores.writer, stores.other)
        let base = try Self.put(writer, 0, .durable)
        let kept = try Self.put(writer, 1, .deferred)
        #expect(try other.currentVersion == base)
        // A chain made afresh reads the file, where the kept frame is not:
        // it cannot take the next one.
        writer.log.dropChains()
        let written = try Self.put(writer, 2, .deferred)
        #expect(written == kept + 1)
        let seen = try other.currentVersion, inFile = try Self.newestInFile(path)
        #expect(seen == written && inFile == written, "v\(written): the other store reads v\(seen), the file has v\(inFile)")
        #expect(try Self.value(writer, 2) == [2] && Self.value(other, 1) == [1] && Self.value(other, 2) == [2])
        #expect(try writer.sync() == written)
    }

    @Test func closingTheStoreWritesItsFrames() throws {
        let dir = try TemporaryDirectory(inMemory: true)
        let path = dir.file("close.firn")
        let other = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
        defer { other.close() }
        let writer = try Self.openKeeping(path)
        let base = try Self.put(writer, 0, .durable)
        // A snapshot outlives close(): the frames still go when the byte does.
        let snapshot = try writer.snapshot()
        let deferred = try Self.put(writer, 1, .deferred)
        #expect(try other.currentVersion == base)
        #expect(try Self.newestInFile(path) == base)
        writer.close()
        #expect(try other.currentVersion == deferred)
        #expect(try Self.value(other, 1) == [1])
        snapshot.close()
    }

    @Test func framesPastTheSizeLimitAreWrittenWhileTheGroupGoesOn() throws {
        var options = StoreOptions.commitLog(pages: 64)
        options.commitLogPages = 256
        let stores = try Stores("size.firn", options: options)
        defer { stores.close() }
        let (writer, other) = (stores.writer, stores.other)
        let base = try Self.put(writer, 0, .durable)
        // 3,000-byte values: 64 KiB of frames after about 22 commits.
        var versions: [UInt64] = []
        for key in UInt8(1)...30 { versions.append(try Self.put(writer, key, .deferred, bytes: 3_000)) }
        let seen = try other.currentVersion
        #expect(seen > base + 15 && seen < versions.last!, "the other store reads v\(seen) of v\(base)…v\(versions.last!)")
        #expect(try other.durableVersion == base)
        #expect(try writer.sync() == versions.last)
        #expect(try other.currentVersion == versions.last)
    }

    @Test func aFailedWriteOfKeptFramesFailsTheStoreAndOthersKeepTheDurableVersion() throws {
        let dir = try TemporaryDirectory(inMemory: true)
        // The writes up to the group, counted on a dry run (no idle watch:
        // the same calls each run).
        func run(fault: FaultyIO.Fault?) throws -> (writes: Int, error: FirnError?, base: UInt64, other: Store, path: String) {
            let path = dir.file("fault-\(fault == nil ? "dry" : "wet").firn")
            let other = try Store.open(path, options: StoreOptions.commitLog(pages: 64))
            var options = StoreOptions.commitLog(pages: 64)
            options.wrapIO = { FaultyIO($0, fault: fault) }
            let writer = try Self.openKeeping(path, options: options)
            defer { writer.close() }
            let faulty = try #require(writer.io as? FaultyIO)
            let base = try Self.put(writer, 0, .durable)
            _ = try Self.put(writer, 1, .deferred)
            _ = try Self.put(writer, 2, .deferred)
            let writes = faulty.count(.write)
            var failure: FirnError? = nil
            do { _ = try writer.sync() } catch { failure = error }
            if failure != nil {
                // Refuses use, saying why, until reopened.
                #expect(throws: FirnError.self) { try writer.snapshot() }
                do {
                    _ = try writer.beginWriteBlocking()
                    Issue.record("a store whose kept frames could not be written began a transaction")
                } catch {
                    #expect("\(error)".contains("deferred commits could not be written"), "\(error)")
                }
                #expect(faulty.injected.count == 1 && "\(failure!)".contains("injected write"),
                        "sync() threw \(String(describing: failure)), not the injected \(faulty.injected)")
            }
            return (writes, failure, base, other, path)
        }
        let dry = try run(fault: nil)
        dry.other.close()
        #expect(dry.error == nil)
        // The next write after the group is the kept frames' one write.
        let wet = try run(fault: FaultyIO.Fault(kind: .write, index: dry.writes + 1, code: .eio))
        defer { wet.other.close() }
        #expect(wet.error != nil)
        #expect(try wet.other.currentVersion == wet.base && wet.other.durableVersion == wet.base)
        #expect(try Self.value(wet.other, 1) == nil)
        // The next writer builds on the durable version.
        let txn = try wet.other.beginWriteBlocking(timeout: .seconds(10))
        #expect(txn.baseVersion == wet.base)
        txn.abort()
    }

    // MARK: the appender alone

    /// Kept frames reach the file as exactly the bytes frame-at-a-time
    /// writes store, with one write per flush: two appenders take the same
    /// random calls (deferred commits of 20–6,000 bytes, durable commits,
    /// seals, flushes), one keeping deferred frames in memory; after every
    /// call that writes, the two files are the same bytes.
    @Test(arguments: [1, 2, 3])
    func keptFramesWriteTheBytesFrameAtATimeWritesWould(seed: UInt64) throws {
        let geometry = PageGeometry(pageSize: 4096)
        let region = LogRegion(startPage: 2, pageCount: 64, epoch: 9, seed: 0x5EED_0000 | UInt32(truncatingIfNeeded: seed))
        let reference = MemoryIO(), keptFile = MemoryIO()
        // Counts the kept appender's writes (no fault).
        let kept = FaultyIO(keptFile, fault: nil)
        let plain = LogAppender.fresh(io: reference, region: region, geometry: geometry)
        let keeping = LogAppender.fresh(io: kept, region: region, geometry: geometry)
        var rng = SeededGenerator(seed: seed)
        var timestamp: UInt64 = 1
        var calls = 0, flushes = 0, keptFrames = 0
        while true {
            timestamp += 1
            let roll = rng.below(10)
            if roll < 7 {
                let size = rng.chance(1, in: 6) ? 3_000 + Int(rng.below(3_000)) : 20 + Int(rng.below(300))
                let payload = Payloads.encode([.put(tree: "t", key: [UInt8(calls & 0xFF)],
                                                                 value: [UInt8](repeating: UInt8(calls & 0xFF), count: size))])
                let deferred = roll < 6
                guard plain.fits(payloadLength: payload.count, deferred: deferred) else { break }
                try plain.appendCommit(payload: payload, deferred: deferred, timestampNanoseconds: timestamp)
                let writesBefore = kept.count(.write)
                try keeping.appendCommit(payload: payload, deferred: deferred, buffered: true, timestampNanoseconds: timestamp)
                if deferred {
                    keptFrames += 1
                    #expect(kept.count(.write) == writesBefore, "seed \(seed), call \(calls): a kept frame was written")
                    #expect(keeping.hasPending)
                } else {
                    // The kept frames (one write), then the frame itself.
                    #expect(kept.count(.write) - writesBefore <= 2 && !keeping.hasPending)
                }
            } else if roll < 8 {
                guard plain.fits(payloadLength: 0) else { break }
                try plain.seal(timestampNanoseconds: timestamp)
                try keeping.seal(timestampNanoseconds: timestamp)
                #expect(!keeping.hasPending)
            } else {
                let writesBefore = kept.count(.write)
                let had = keeping.hasPending
                try keeping.flush()
                flushes += had ? 1 : 0
                #expect(kept.count(.write) - writesBefore == (had ? 1 : 0), "seed \(seed), call \(calls): a flush is one write")
            }
            calls += 1
            #expect(plain.nextOffset == keeping.nextOffset && plain.chain == keeping.chain
                    && plain.newestVersion == keeping.newestVersion && plain.durableVersion == keeping.durableVersion)
            if !keeping.hasPending {
                #expect(Self.same(reference.bytes, keptFile.bytes), "seed \(seed), call \(calls): the files differ")
            }
        }
        try keeping.flush()
        #expect(Self.same(reference.bytes, keptFile.bytes), "seed \(seed), at the end: the files differ")
        var file = keptFile.bytes
        file += [UInt8](repeating: 0, count: max(0, Int(region.startPage + region.pageCount) * geometry.pageSize - file.count))
        let scan = file.withUnsafeBytes { LogScan.scan(region, bytes: Self.regionBytes($0, region, geometry), geometry: geometry) }
        #expect(scan.newestVersion == plain.newestVersion)
        #expect(calls > 40 && keptFrames > 20 && flushes > 2, "seed \(seed): \(calls) calls, \(keptFrames) kept frames, \(flushes) flushes")
    }

    /// A flush that fails drops the kept frames and throws; a frame that is
    /// not deferred, after kept frames whose write fails, is not written
    /// and reports the failure as an undo that failed too (the store
    /// refuses use: commits it acknowledged will never reach the file).
    /// Whatever part of the kept frames the failed write stored stays
    /// unsealed: no opener takes it (FORMAT.md 2.1, 8.2).
    @Test func aFailedWriteOfKeptFramesIsReportedAndNothingOfItIsDurable() throws {
        let geometry = PageGeometry(pageSize: 4096)
        let region = LogRegion(startPage: 0, pageCount: 8, epoch: 3, seed: 0xABCD)
        let payload = Payloads.encode([.put(tree: "t", key: [1], value: [1, 2, 3])])
        for durableAfter in [false, true] {
            let memory = MemoryIO()
            // Write 1 is the durable base frame; write 2 the kept frames.
            let faulty = FaultyIO(memory, fault: FaultyIO.Fault(kind: .write, index: 2, code: .eio))
            let appender = LogAppender.fresh(io: faulty, region: region, geometry: geometry)
            try appender.appendCommit(payload: payload, deferred: false, timestampNanoseconds: 1)
            try appender.appendCommit(payload: payload, deferred: true, buffered: true, timestampNanoseconds: 2)
            try appender.appendCommit(payload: payload, deferred: true, buffered: true, timestampNanoseconds: 3)
            var undoFailures: [FirnError] = []
            var failure: FirnError? = nil
            do {
                if durableAfter {
                    try appender.appendCommit(payload: payload, deferred: false, timestampNanoseconds: 4) { undoFailures.append($0) }
                } else {
                    try appender.flush()
                }
            } catch {
                failure = error
            }
            #expect(failure != nil && failure == faulty.injected.first)
            #expect(undoFailures.count == (durableAfter ? 1 : 0))
            #expect(!appender.hasPending)
            var file = memory.bytes
            file += [UInt8](repeating: 0, count: max(0, Int(region.pageCount) * geometry.pageSize - file.count))
            let scan = file.withUnsafeBytes { LogScan.scan(region, bytes: $0, geometry: geometry) }
            #expect(scan.durableVersion == region.epoch + 1 && scan.newestVersion <= region.epoch + 3,
                    "durableAfter \(durableAfter): the file's log is durable to v\(scan.durableVersion), newest v\(scan.newestVersion)")
        }
    }

    static func regionBytes(_ file: UnsafeRawBufferPointer, _ region: LogRegion, _ geometry: PageGeometry) -> UnsafeRawBufferPointer {
        let start = Int(region.startPage) * geometry.pageSize
        let count = Int(region.pageCount) * geometry.pageSize
        return UnsafeRawBufferPointer(rebasing: file[min(start, file.count)..<min(start + count, file.count)])
    }

    /// Equal byte arrays, compared without printing them on failure.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a == b
    }
}
