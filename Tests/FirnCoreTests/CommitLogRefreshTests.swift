import Synchronization
import Testing
@testable import FirnCore

/// A refresh to the version this store's last transaction appended as a
/// frame takes the commit slots that transaction read (frames write no
/// record), so an instance that moves to each of its own commits reads no
/// slot page per commit; another writer's version is still read from the
/// file.
@Suite struct CommitLogRefreshTests {
    /// Counts reads of the two commit slot pages.
    final class SlotReads: FileIO, @unchecked Sendable {
        let base: any FileIO
        let pageSize: UInt64
        private let reads = Mutex(0)
        init(_ base: any FileIO, pageSize: Int) {
            self.base = base
            self.pageSize = UInt64(pageSize)
        }
        var count: Int { reads.withLock { $0 } }
        var path: String { base.path }
        var descriptor: Int32 { base.descriptor }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) { try base.write(bytes, at: offset) }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
            if offset < 2 * pageSize { reads.withLock { $0 += 1 } }
            return try base.read(into: buffer, at: offset)
        }
        func sync() throws(FirnError) { try base.sync() }
        func extend(to size: UInt64) throws(FirnError) { try base.extend(to: size) }
        func size() throws(FirnError) -> UInt64 { try base.size() }
        func close() { base.close() }
    }

    @Test func refreshingToItsOwnFrameReadsNoSlotAndAnotherWritersFrameIsReadFromTheFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("refresh.firn")
        let counter = Mutex<SlotReads?>(nil)
        var options = StoreOptions()
        options.durability = .none
        options.wrapIO = { base in
            let io = SlotReads(base, pageSize: PageGeometry.defaultPageSize)
            counter.withLock { $0 = io }
            return io
        }
        let store = try Store.open(path, options: options)
        defer { store.close() }
        let io = try #require(counter.withLock { $0 })
        try store.write { txn in try #require(try txn.tree("t")).put([0], [0]) }
        var snapshot = try store.snapshot()
        for n in 1...20 as ClosedRange<UInt8> {
            let txn = try store.beginWrite()
            try #require(try txn.tree("t")).put([n], [n])
            let version = try txn.commit()
            let before = io.count
            snapshot = try store.refresh(snapshot)
            #expect(io.count == before, "the refresh to frame \(version) read the slots")
            #expect(snapshot.version == version)
            #expect(try snapshot.tree("t")?.get([n])?.array == [n])
            #expect(try snapshot.tree("t")?.count == UInt64(n) + 1)
        }
        // Another store (as another process would) appends the next frame:
        // this store's refresh reads the slots, and sees it.
        var otherOptions = StoreOptions()
        otherOptions.durability = .none
        let other = try Store.open(path, options: otherOptions)
        let txn = try other.beginWrite()
        try #require(try txn.tree("t")).put([99], [99])
        let theirs = try txn.commit()
        other.close()
        let before = io.count
        snapshot = try store.refresh(snapshot)
        #expect(io.count > before)
        #expect(snapshot.version == theirs)
        #expect(try snapshot.tree("t")?.get([99])?.array == [99])
        snapshot.close()
    }
}
