import Testing
@testable import FirnCore
import FirnTestSupport

/// The packed-image writer takes a source leaf whole when its cells lie where
/// appending them would put them (`NodePage.adoptAppendedLeaf`): the image
/// must be the one the cell-by-cell copy builds, byte for byte, and any
/// other layout must go cell by cell.
@Suite struct WholeLeafCopyTests {
    static let pageSize = 4096

    /// A leaf of `count` cells appended in key order, sealed as page 9.
    static func appendedLeaf(count: Int, valueLength: Int = 40) -> NodePage {
        let page = NodePage(pageSize: pageSize, isLeaf: true)
        for i in 0..<count {
            let key: [UInt8] = [UInt8(i >> 8), UInt8(i & 0xFF), 7]
            let value = [UInt8](repeating: UInt8(i % 251), count: valueLength)
            key.withUnsafeBytes { k in value.withUnsafeBytes { v in page.insert(at: page.count, key: k, value: .inline(v)) } }
        }
        return page
    }

    /// `page` sealed, copied out (a sealed NodePage's bytes change with its next edit).
    static func sealed(_ page: NodePage) -> [UInt8] {
        Array(page.seal(pageNumber: 9, birth: 3, level: 0).0)
    }

    static func adopt(_ bytes: [UInt8]) -> (Bool, [UInt8]) {
        let target = NodePage(pageSize: pageSize, isLeaf: true)
        let taken = bytes.withUnsafeBytes { raw in
            target.adoptAppendedLeaf(PageView(base: raw.baseAddress!, pageSize: pageSize, number: 9),
                                     geometry: PageGeometry(pageSize: pageSize))
        }
        return (taken, sealed(target))
    }

    @Test func anAppendedLeafIsTakenWholeAsTheSameBytes() {
        for count in [1, 2, 17, 60] {
            let bytes = Self.sealed(Self.appendedLeaf(count: count))
            let (taken, copy) = Self.adopt(bytes)
            #expect(taken, "a leaf of \(count) appended cells")
            #expect(copy == bytes, "a leaf of \(count) appended cells")
        }
    }

    @Test func otherLayoutsAreLeftToTheCellByCellCopy() throws {
        // An insert before the last cell: the cells no longer lie in order.
        let edited = Self.appendedLeaf(count: 10)
        let key: [UInt8] = [0, 3, 8]
        key.withUnsafeBytes { k in [UInt8](repeating: 1, count: 40).withUnsafeBytes { v in
            edited.insert(at: 4, key: k, value: .inline(v))
        } }
        #expect(!Self.adopt(Self.sealed(edited)).0)

        // An overflow cell.
        let overflow = Self.appendedLeaf(count: 3)
        [UInt8]([9, 9, 9]).withUnsafeBytes { k in
            overflow.insert(at: 3, key: k, value: .overflow(PageRef(page: 40, birth: 2, checksum: 5), length: 9000))
        }
        #expect(!Self.adopt(Self.sealed(overflow)).0)

        // A nonzero reserved byte, a set flag, an offset past the page, a
        // value length running past the cell below: refused, nothing read
        // outside the page.
        let base = Self.sealed(Self.appendedLeaf(count: 5))
        let firstCell = Int(base[PageHeader.size]) | Int(base[PageHeader.size + 1]) << 8
        var reserved = base
        reserved[firstCell + 3] = 1
        #expect(!Self.adopt(reserved).0)
        var flagged = base
        flagged[firstCell + 2] = 0x40
        #expect(!Self.adopt(flagged).0)
        var outside = base
        outside[PageHeader.size] = 0xFF
        outside[PageHeader.size + 1] = 0xFF
        #expect(!Self.adopt(outside).0)
        var long = base
        long[firstCell + 4] = long[firstCell + 4] &+ 1
        #expect(!Self.adopt(long).0)
    }

    /// Before taking a leaf whole, the loader writes the leaf it was filling
    /// when the source's first entry would not fit, as `add` would; an
    /// inline value too long to stay inline goes to an overflow chain in
    /// `add`, so its (smaller) cell must not make the loader write early.
    @Test func aFirstValueThatGoesToAnOverflowChainDoesNotEndTheLeafEarly() throws {
        let geometry = PageGeometry(pageSize: Self.pageSize)
        var loader = TreeLoader(pageSize: Self.pageSize)
        var counter = PageCounter(pageNumberForNextEmit: 2, birth: 1)
        // 60 cells of 63 bytes: 284 bytes left in the leaf being filled.
        for i in 0..<60 {
            let key: [UInt8] = [0, UInt8(i), 1]
            try key.withUnsafeBytes { k in try [UInt8](repeating: 3, count: 50).withUnsafeBytes { v in
                try loader.add(key: k, value: .inline(v), writer: &counter)
            } }
        }
        #expect(counter.pageNumberForNextEmit == 2)
        let long = [UInt8](repeating: 9, count: 2000)
        #expect(!geometry.isInline(keyLength: 3, valueLength: long.count))
        let source = NodePage(pageSize: Self.pageSize, isLeaf: true)
        [UInt8]([1, 0, 0]).withUnsafeBytes { k in long.withUnsafeBytes { v in source.insert(at: 0, key: k, value: .inline(v)) } }
        let bytes = Self.sealed(source)
        try bytes.withUnsafeBytes { raw in
            let view = PageView(base: raw.baseAddress!, pageSize: Self.pageSize, number: 9)
            try loader.flushLeafIfFull(before: view, geometry: geometry, writer: &counter)
        }
        #expect(counter.pageNumberForNextEmit == 2)

        // A first value that stays inline and does not fit: the leaf is written.
        let wide = NodePage(pageSize: Self.pageSize, isLeaf: true)
        [UInt8]([1, 0, 0]).withUnsafeBytes { k in [UInt8](repeating: 4, count: 900).withUnsafeBytes { v in
            wide.insert(at: 0, key: k, value: .inline(v))
        } }
        #expect(geometry.isInline(keyLength: 3, valueLength: 900))
        let wideBytes = Self.sealed(wide)
        try wideBytes.withUnsafeBytes { raw in
            let view = PageView(base: raw.baseAddress!, pageSize: Self.pageSize, number: 9)
            try loader.flushLeafIfFull(before: view, geometry: geometry, writer: &counter)
        }
        #expect(counter.pageNumberForNextEmit == 3)
        #expect(loader.leafIsEmpty)
    }

    /// A churned file's leaves were edited in place (cell by cell); its
    /// packed image's leaves are appended (whole). Packing the image again
    /// takes every leaf whole and must give the same file.
    @Test func packingAPackedImageAgainGivesTheSameBytes() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("source.firn"))
        _ = try PackedImageTests.fill(store, records: 4000, seed: 11)
        let snapshot = try store.snapshot()
        let (one, a) = try pack(snapshot, to: dir.file("first.firn"))
        snapshot.close()

        let packed = try Store.open(dir.file("first.firn"))
        let again = try packed.snapshot()
        let (two, b) = try pack(again, to: dir.file("second.firn"))
        // Every leaf of the trees without overflow values goes whole.
        let report = Verifier.verify(again, slots: try packed.readSlots())
        #expect(report.findings == [])
        let plainLeaves = report.trees.filter { ["users", "orders"].contains($0.name) }.map(\.leafPages).reduce(0, +)
        again.close()

        #expect(two.wholeLeaves > one.wholeLeaves)
        #expect(plainLeaves > 10 && two.wholeLeaves >= plainLeaves)
        #expect(a.count == b.count)
        #expect(a == b)
    }

    /// `snapshot` packed into a new file at `path`: the writer's summary and the file's bytes.
    private func pack(_ snapshot: Snapshot, to path: String) throws -> (PackedImageWriter.Summary, [UInt8]) {
        let file = try POSIXFile(path: path, writable: true, create: true)
        defer { file.close() }
        let summary = try PackedImageWriter.write(snapshot, to: file)
        var bytes = [UInt8](repeating: 0, count: Int(try file.size()))
        let read = try withMutableBytes(&bytes) { (b) throws(FirnError) in try file.read(into: b, at: 0) }
        #expect(read == bytes.count)
        return (summary, bytes)
    }
}
