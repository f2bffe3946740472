import Synchronization
import Testing
@testable import FirnCore
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `StoreOptions.defersOpenCheck` (issue 28, verify): `verify` of the
/// current version leaves the open-time check's walk of the newest record
/// to the verifier's, so each page is read once. The record is published
/// only after that walk found it clean; a writer that opens meanwhile keeps
/// off the pages the pinned snapshot reads.
@Suite struct DeferredOpenCheckTests {
    /// Counts the bytes read through it.
    final class ReadCountingIO: FileIO, @unchecked Sendable {
        let base: any FileIO
        private let read = Mutex<Int>(0)
        init(_ base: any FileIO) { self.base = base }
        var bytesRead: Int { read.withLock { $0 } }
        var path: String { base.path }
        var descriptor: Int32 { base.descriptor }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) { try base.write(bytes, at: offset) }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
            let n = try base.read(into: buffer, at: offset)
            read.withLock { $0 += n }
            return n
        }
        func sync() throws(FirnError) { try base.sync() }
        func extend(to size: UInt64) throws(FirnError) { try base.extend(to: size) }
        func size() throws(FirnError) -> UInt64 { try base.size() }
        func close() { base.close() }
    }

    /// A file of one big page commit on top of version 1: the open-time
    /// check walks every page of it. Its writer has closed, leaving the lock
    /// file with nothing published.
    static func bulkFile(_ path: String) throws {
        var options = StoreOptions()
        options.commitLogPages = 0
        let store = try Store.open(path, options: options)
        defer { store.close() }
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<3_000 { try tree.put(ScatteredKeys.key(i), [UInt8](repeating: UInt8(i % 251), count: 200)) }
        }
    }

    static func open(_ path: String, deferring: Bool, counter: Box<ReadCountingIO?>? = nil) throws -> Store {
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        options.defersOpenCheck = deferring
        options.keepOpenCheckPages = true
        if let counter {
            options.wrapIO = { base in
                let io = ReadCountingIO(base)
                counter.value = io
                return io
            }
        }
        return try Store.open(path, options: options)
    }

    /// Bytes read by the open and a verify of the current version.
    static func bytesReadByVerify(_ path: String, deferring: Bool) throws -> (bytes: Int, clean: Bool, pages: UInt64) {
        let counter = Box<ReadCountingIO?>(nil)
        let store = try open(path, deferring: deferring, counter: counter)
        defer { store.close() }
        let snapshot = try store.deferredCheckSnapshot(label: "test")
        defer { snapshot.close() }
        let report = Verifier.verify(snapshot, slots: try store.readSlots())
        let io = try #require(counter.value)
        return (io.bytesRead, report.isClean, snapshot.info.logicalPageCount)
    }

    @Test func eachPageIsReadOnceInsteadOfTwice() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("bulk.firn")
        try Self.bulkFile(path)
        let deferred = try Self.bytesReadByVerify(path, deferring: true)
        let checked = try Self.bytesReadByVerify(path, deferring: false)
        #expect(deferred.clean && checked.clean)
        let fileBytes = Int(deferred.pages) * PageGeometry.defaultPageSize
        // The open-time check reads (nearly) the whole file before the
        // verifier does; deferred, only the verifier reads it (and the
        // slot pages a few times).
        #expect(checked.bytes > fileBytes * 3 / 2)
        #expect(deferred.bytes <= fileBytes * 11 / 10)
    }

    @Test func nothingIsPublishedUntilTheWalkAcceptsTheRecord() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("bulk.firn")
        try Self.bulkFile(path)
        let store = try Self.open(path, deferring: true)
        defer { store.close() }
        let lockFile = try #require(store.lockFile)
        #expect(store.openCheck.checkDeferred)
        #expect(store.openCheck.pagesChecked == 0)
        #expect(lockFile.latestVersion == 0)
        let snapshot = try store.deferredCheckSnapshot(label: "test")
        defer { snapshot.close() }
        #expect(snapshot.isPinned)
        #expect(snapshot.version == store.openCheck.newest?.version)
        #expect(lockFile.latestVersion == 0)
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).isClean)
        try store.acceptDeferredCheck()
        #expect(lockFile.latestVersion == snapshot.version)
    }

    @Test func aWriterThatOpensMeanwhileLeavesThePinnedPagesAlone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("bulk.firn")
        try Self.bulkFile(path)
        let reader = try Self.open(path, deferring: true)
        defer { reader.close() }
        let snapshot = try reader.deferredCheckSnapshot(label: "test")
        defer { snapshot.close() }
        // A writer checks the record itself, publishes it, and rewrites
        // every leaf many times over: without the pin it would reuse the
        // pages the snapshot reads.
        var options = StoreOptions()
        options.commitLogPages = 0
        let writer = try Store.open(path, options: options)
        defer { writer.close() }
        for round in 0..<6 {
            try writer.write { txn in
                let tree = try #require(try txn.tree("t"))
                for i in 0..<3_000 { try tree.put(ScatteredKeys.key(i), [UInt8](repeating: UInt8((i + round + 1) % 251), count: 200)) }
            }
        }
        let report = Verifier.verify(snapshot, slots: try reader.readSlots())
        #expect(report.findings.isEmpty, "\(report.findings.prefix(3))")
        // Accepting later publishes nothing over the writer's versions.
        let published = try #require(reader.lockFile).latestVersion
        try reader.acceptDeferredCheck()
        #expect(try #require(reader.lockFile).latestVersion == published)
        #expect(published > snapshot.version)
    }

    @Test func aRecordTheCheckWouldRejectIsFoundByTheWalk() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.firn")
        let page = try SkippedOpenCheckTests.damagedFile(path)
        let store = try Self.open(path, deferring: true)
        defer { store.close() }
        #expect(store.openCheck.checkDeferred)
        let snapshot = try store.deferredCheckSnapshot(label: "test")
        defer { snapshot.close() }
        #expect(snapshot.version == store.openCheck.newest?.version)
        let report = Verifier.verify(snapshot, slots: try store.readSlots())
        #expect(report.findings.contains { $0.page == page && $0.kind == VerifyFinding.Kind.checksum })
        // Not accepted: reopened without deferring, the check rejects it.
        let checked = try Self.open(path, deferring: false)
        defer { checked.close() }
        #expect(checked.openCheck.rejected?.version == snapshot.version)
    }
}
