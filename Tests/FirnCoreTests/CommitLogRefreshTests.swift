import Synchronization
import Testing
@testable import FirnCore
import FirnTestSupport

/// A refresh to the version this store's last transaction appended as a
/// frame takes the commit slots that transaction read (frames write no
/// record), so an instance that moves to each of its own commits reads no
/// slot page per commit; another writer's version is still read from the
/// file.
@Suite struct CommitLogRefreshTests {
    @Test func refreshingToItsOwnFrameReadsNoSlotAndAnotherWritersFrameIsReadFromTheFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("refresh.firn")
        // Reads of the two commit slot pages.
        let slotReads = Mutex(0)
        let slotBytes = 2 * UInt64(PageGeometry.defaultPageSize)
        var options = StoreOptions()
        options.durability = .none
        options.wrapIO = { base in
            HookedIO(base) { offset in if offset < slotBytes { slotReads.withLock { $0 += 1 } } }
        }
        let store = try Store.open(path, options: options)
        defer { store.close() }
        try store.write { txn in try #require(try txn.tree("t")).put([0], [0]) }
        var snapshot = try store.snapshot()
        for n in 1...20 as ClosedRange<UInt8> {
            let txn = try store.beginWriteBlocking()
            try #require(try txn.tree("t")).put([n], [n])
            let version = try txn.commit()
            let before = slotReads.withLock { $0 }
            snapshot = try store.refresh(snapshot)
            #expect(slotReads.withLock { $0 } == before, "the refresh to frame \(version) read the slots")
            #expect(snapshot.version == version)
            #expect(try snapshot.tree("t")?.get([n])?.array == [n])
            #expect(try snapshot.tree("t")?.count == UInt64(n) + 1)
        }
        // Another store (as another process would) appends the next frame:
        // this store's refresh reads the slots, and sees it.
        var otherOptions = StoreOptions()
        otherOptions.durability = .none
        let other = try Store.open(path, options: otherOptions)
        let txn = try other.beginWriteBlocking()
        try #require(try txn.tree("t")).put([99], [99])
        let theirs = try txn.commit()
        other.close()
        let before = slotReads.withLock { $0 }
        snapshot = try store.refresh(snapshot)
        #expect(slotReads.withLock { $0 } > before)
        #expect(snapshot.version == theirs)
        #expect(try snapshot.tree("t")?.get([99])?.array == [99])
        snapshot.close()
    }

    /// The frames this store appends (commits, deferred or not, and seals)
    /// come into its chain from memory, as its appender wrote them: right
    /// after each commit the chain already holds the frame, before anything
    /// reads the region; and what it holds is what a scan of the file
    /// finds, and the versions read as another process reads them. Commit
    /// frames' links are made from the transaction's changes, not parsed
    /// from the payload (`LogOverlayVersion.appending`): trees made,
    /// dropped and made again must come out as the payload's parse has them.
    @Test func ownFramesComeIntoTheChainFromMemoryAndReadAsTheFileDoes() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("handoff.firn")
        let store = try Store.open(path)
        defer { store.close() }
        try store.write { txn in _ = try txn.tree("t", create: true) }
        let record = try #require(try CommitSlots.read(store.io).newest)
        let region = try #require(record.logRegion)
        var expected: [UInt8: [UInt8]] = [:]
        var versions: [UInt64] = []
        for n in 1...24 as ClosedRange<UInt8> {
            let txn = try store.beginWriteBlocking()
            let tree = try #require(try txn.tree("t"))
            try tree.put([n], [n, n])
            expected[n] = [n, n]
            if n % 5 == 0, n > 5 {
                try tree.delete([n - 5])
                expected[n - 5] = nil
            }
            // Trees made, dropped and made again, within one transaction
            // and across them; a key put and deleted by one transaction;
            // a key put again.
            switch n {
            case 6: try #require(try txn.tree("u", create: true)).put([1], [1])
            case 9:
                #expect(try txn.dropTree("u"))
                try #require(try txn.tree("u", create: true)).put([2], [2])
            case 12:
                try #require(try txn.tree("w", create: true)).put([3], [3])
                #expect(try txn.dropTree("w"))
            case 15: #expect(try txn.dropTree("u"))
            case 18: try tree.put([n - 1], [0])
                expected[n - 1] = [0]
            case 20:
                try tree.put([200], [200])
                try tree.delete([200])
            default: break
            }
            let version = try txn.commit(durability: n % 3 == 0 ? .durable : .deferred)
            versions.append(version)
            let chain = try #require(store.log.existingChain(of: region))
            #expect(chain.newestVersion == version, "frame \(version) is not in the chain right after its commit")
            if n % 4 == 0 {
                _ = try store.sync()
                #expect(chain.durableVersion == version, "the seal after \(version) is not in the chain")
            }
        }
        // Still the same region: the test checks one chain against the file.
        #expect(try CommitSlots.read(store.io).newest == record)
        let chain = try #require(store.log.existingChain(of: region))
        let held = chain.scan
        let map = try store.mapCovering(pages: record.logicalPageCount, version: record.version)
        let pageSize = Int(store.geometry.pageSize)
        let bytes = UnsafeRawBufferPointer(start: map.base.advanced(by: Int(region.startPage) * pageSize),
                                           count: Int(region.pageCount) * pageSize)
        let read = LogScan.scan(region, bytes: bytes, geometry: store.geometry)
        #expect(held.frames == read.frames)
        #expect(held.nextOffset == read.nextOffset && held.chain == read.chain)
        #expect(held.newestVersion == read.newestVersion && held.durableVersion == read.durableVersion)
        // Each version's link as handed over, against a chain that reads
        // every frame from the file (as another process's store does).
        let reading = store.log.reading(for: VersionInfo(record), map: map)
        let fresh = LogChain(region: region, geometry: store.geometry, countLimit: reading.countLimit,
                             checkpointHasTree: reading.checkpointHasTree)
        _ = try fresh.readAll(bytes: bytes, owner: map)
        func described(_ link: LogOverlayVersion) -> [String] {
            ["t", "u", "w"].flatMap { name in
                link.entries(of: name).map { entry in
                    "\(name) \(Array(entry.key)) \(entry.value.map { "\(Array($0))" } ?? "deleted") @\(entry.version)"
                }
            } + link.changes.sorted { $0.key < $1.key }.map { "\($0.key) changed, reset \($0.value.reset)" }
        }
        for version in versions {
            let mine = try #require(try store.log.link(version, of: record))
            let theirs = try #require(try fresh.link(version, bytes: bytes, owner: map))
            #expect(mine.trees == theirs.trees, "version \(version)")
            #expect(mine.loggedEntries == theirs.loggedEntries, "version \(version)")
            #expect(described(mine) == described(theirs), "version \(version)")
        }
        let last = try store.snapshot()
        #expect(try last.tree("t")?.count == UInt64(expected.count))
        last.close()
    }
}
