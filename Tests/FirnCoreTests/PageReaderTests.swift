import Testing
@testable import FirnCore
import FirnTestSupport

/// `PageReader` (pages copied with pread into frames, runs read a window at a
/// time) and the walk compaction and export read checkpoint trees with.
@Suite struct PageReaderTests {
    /// A file of `pages` pages, each holding its own number at offset 8.
    private static func numberedFile(_ dir: TemporaryDirectory, pages: Int, pageSize: Int = 4096) throws -> POSIXFile {
        let file = try POSIXFile(path: dir.file("pages"), writable: true, create: true)
        var bytes = [UInt8](repeating: 0, count: pages * pageSize)
        for page in 0..<pages { bytes.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(page).littleEndian, toByteOffset: page * pageSize + 8, as: UInt64.self) } }
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        return file
    }

    @Test func runsAreReadAWindowAtATimeAndScatteredPagesOneByOne() throws {
        let dir = try TemporaryDirectory()
        let file = try Self.numberedFile(dir, pages: 600)
        let reads = Box<[UInt64]>([])
        let io = HookedIO(file) { offset in reads.update { $0.append(offset / 4096) } }
        let reader = PageReader(io: io, pageSize: 4096, pageLimit: 600)
        // A run of 500 pages in file order: the window doubles up to 64 pages.
        for page in UInt64(2)..<502 {
            let view = try reader.view(page)
            #expect(view.storedPageNumber == page)
            reader.release(to: 0)
        }
        #expect(reads.value.count < 20, "\(reads.value.count) reads for a run of 500 pages")
        // Scattered pages: one read each, each the page asked for.
        reads.value = []
        for page: UInt64 in [590, 7, 300, 45, 580] {
            #expect(try reader.view(page).storedPageNumber == page)
            reader.release(to: 0)
        }
        #expect(reads.value == [590, 7, 300, 45, 580])
    }

    @Test func framesStayValidUntilReleased() throws {
        let dir = try TemporaryDirectory()
        let reader = PageReader(io: try Self.numberedFile(dir, pages: 100), pageSize: 4096, pageLimit: 100)
        let views = try (UInt64(10)..<20).map { try reader.view($0) }
        #expect(reader.mark == 10)
        #expect(views.map(\.storedPageNumber) == Array(10..<20))
        reader.release(to: 3)
        _ = try reader.view(90)
        // The frames below the mark kept their pages; the fourth holds page 90 now.
        #expect(views.prefix(3).map(\.storedPageNumber) == [10, 11, 12])
        #expect(views[3].storedPageNumber == 90)
    }

    @Test func pagesOutsideTheVersionOrPastTheFileAreRefused() throws {
        let dir = try TemporaryDirectory()
        // The version claims 200 pages; the file holds 100.
        let reader = PageReader(io: try Self.numberedFile(dir, pages: 100), pageSize: 4096, pageLimit: 200)
        for page: UInt64 in [0, 1, 200, .max] {
            #expect(throws: FirnError.self) { _ = try reader.view(page) }
        }
        do {
            _ = try reader.view(150)
            Issue.record("page 150 of a 100-page file was read")
        } catch {
            #expect(error.detail.contains("beyond the end of the file"))
        }
        // A run that reaches the file's end ends with the same refusal.
        reader.release(to: 0)
        var refused: UInt64? = nil
        for page in UInt64(90)..<110 {
            do { _ = try reader.view(page) } catch { refused = page; break }
            reader.release(to: 0)
        }
        #expect(refused == 100)
    }

    /// The checked walk yields every tree's entries (overflow values
    /// included) exactly as a cursor over the map does, on a checkpoint
    /// with trees three levels deep.
    @Test func checkedWalkYieldsWhatACursorYields() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("walk.firn"))
        defer { store.close() }
        _ = try PackedImageTests.fill(store, records: 24000, seed: 11)
        _ = try store.checkpoint()
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        #expect(snapshot.log == nil || snapshot.log?.trees.isEmpty == true)
        let reader = PageReader(io: store.io, pageSize: store.pageSize, pageLimit: snapshot.info.logicalPageCount)
        var deepest = 0
        for (name, entry) in try snapshot.catalog() {
            var walk = CheckedTreeWalk(reader: reader, root: entry.root, version: snapshot.version)
            var cursor = TreeCursor(source: snapshot.source, rootRef: entry.root)
            try walk.first()
            try cursor.first()
            var count: UInt64 = 0
            while cursor.isValid {
                #expect(walk.isValid)
                let key = try walk.withKey { Array($0) }
                #expect(key == (try cursor.withKey { Array($0) }), "tree \(name), entry \(count)")
                let walked = try #require(try walk.storedValue())
                let read = try #require(try cursor.storedValue())
                switch (walked, read) {
                case let (.inline(a), .inline(b)):
                    #expect(Array(a) == Array(b))
                case let (.overflow(headA, lengthA), .overflow(headB, lengthB)):
                    #expect(headA == headB && lengthA == lengthB)
                    #expect(try walk.readOverflow(headA, length: lengthA) == (try cursor.readOverflow(headB, length: lengthB)))
                default:
                    Issue.record("tree \(name), entry \(count): \(walked) against \(read)")
                }
                count += 1
                try walk.next()
                try cursor.next()
            }
            #expect(!walk.isValid)
            #expect(count == entry.count)
            if !entry.root.isNone { deepest = max(deepest, Int(try snapshot.source.view(entry.root.page).level) + 1) }
        }
        #expect(deepest >= 3)
        #expect(reader.mark == 0)
    }

    /// A damaged leaf under a checkpoint is refused by the walk, not copied.
    @Test func checkedWalkRefusesADamagedPage() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("damaged.firn")
        let store = try Store.open(path)
        _ = try PackedImageTests.fill(store, records: 4000, seed: 5)
        _ = try store.checkpoint()
        let snapshot = try store.snapshot()
        let (name, entry) = try #require(try snapshot.catalog().first { !$0.1.root.isNone })
        // The leftmost leaf of the tree.
        var ref = entry.root
        while true {
            let view = try snapshot.source.view(ref.page)
            guard view.typeByte == PageType.branch.rawValue else { break }
            ref = try view.branchChild(0)
        }
        // Flip one byte in the middle of the leaf.
        let offset = ref.page * UInt64(store.pageSize) + UInt64(store.pageSize / 2)
        var byte: [UInt8] = [0]
        _ = try byte.withUnsafeMutableBytes { try store.io.read(into: $0, at: offset) }
        byte[0] ^= 0x5A
        try byte.withUnsafeBytes { try store.io.write($0, at: offset) }
        let reader = PageReader(io: store.io, pageSize: store.pageSize, pageLimit: snapshot.info.logicalPageCount)
        var walk = CheckedTreeWalk(reader: reader, root: entry.root, version: snapshot.version)
        do {
            try walk.first()
            while walk.isValid { try walk.next() }
            Issue.record("tree \(name): the damaged page \(ref.page) was walked")
        } catch {
            #expect(error.detail.contains("checksum"), "\(error)")
        }
        snapshot.close()
        store.close()
    }
}
