/// The state a write transaction's trees share: the base version's pages,
/// the page allocator, the pages this transaction retires, and the I/O
/// layer its new pages are written through.
final class WriteContext {
    /// Pages of the base version and those this transaction has written so
    /// far (overflow chains are written when put, and read back through the map).
    var source: PageSource {
        get throws(FirnError) {
            if cachedSource.pageLimit != allocator.logicalPageCount {
                var map = cachedSource.map
                let needed = allocator.logicalPageCount * UInt64(geometry.pageSize)
                if needed > UInt64(map.length) { map = try remap(allocator.logicalPageCount) }
                cachedSource = PageSource(map: map, pageSize: geometry.pageSize, pageLimit: allocator.logicalPageCount)
            }
            return cachedSource
        }
    }
    private var cachedSource: PageSource
    /// A map covering at least the given number of pages.
    private let remap: (UInt64) throws(FirnError) -> Mapping
    let geometry: PageGeometry
    /// The version this transaction will commit as.
    let version: UInt64
    let io: any FileIO
    let allocator: PageAllocator
    /// Pages the base version sees that this transaction replaced: (page, birth).
    var retired: [(page: UInt64, birth: UInt64)] = []
    /// Pages written by this transaction that no longer hold anything.
    var recycled: [UInt64] = []
    /// Overflow chains written by this transaction, by head page: their pages
    /// may lie past the base version's pages, so they are not read back.
    private var chains: [UInt64: [UInt64]] = [:]
    var pagesWritten: UInt64 = 0
    var bytesWritten: UInt64 = 0
    private let scratch: UnsafeMutableRawBufferPointer

    init(
        source: PageSource, geometry: PageGeometry, version: UInt64, io: any FileIO, allocator: PageAllocator,
        remap: @escaping (UInt64) throws(FirnError) -> Mapping
    ) {
        cachedSource = source
        self.remap = remap
        self.geometry = geometry
        self.version = version
        self.io = io
        self.allocator = allocator
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: geometry.pageSize, alignment: 4096)
    }

    deinit { scratch.deallocate() }

    func allocate() throws(FirnError) -> UInt64 {
        if let page = recycled.popLast() { return page }
        return try allocator.allocate()
    }

    /// A page leaves the tree: reused at once when this transaction wrote it,
    /// otherwise retired until no pinned version can see it.
    func release(page: UInt64, birth: UInt64) {
        if birth >= version { recycled.append(page) } else { retired.append((page, birth)) }
    }

    func recycle(_ page: UInt64) { recycled.append(page) }

    /// Seals a node's page (kept in page layout) and writes it as it is.
    func writeNode(_ node: Node, page: UInt64) throws(FirnError) -> UInt32 {
        let (bytes, crc) = node.page.seal(pageNumber: page, birth: version, level: node.level)
        try writePage(bytes, to: page)
        return crc
    }

    /// Writes a value as an overflow chain, tail first so every reference
    /// carries the checksum of the page it points to; returns the head.
    func writeOverflow(_ bytes: [UInt8]) throws(FirnError) -> PageRef {
        let count = OverflowLayout.pageCount(length: bytes.count, pageSize: geometry.pageSize)
        var pages: [UInt64] = []
        pages.reserveCapacity(count)
        for _ in 0..<count { pages.append(try allocate()) }
        let head = try OverflowLayout.writeChain(bytes, pages: pages, birth: version, scratch: scratch) {
            (page, image) throws(FirnError) in try writePage(image, to: page)
        }
        chains[head.page] = pages
        return head
    }

    /// Releases every page of an overflow chain.
    func releaseOverflow(_ head: PageRef, length: UInt64) throws(FirnError) {
        if head.birth == version, let pages = chains.removeValue(forKey: head.page) {
            recycled.append(contentsOf: pages)
            return
        }
        let capacity = UInt64(geometry.overflowPayloadCapacity)
        let maxPages = length / capacity + 1
        var ref = head
        var seen: UInt64 = 0
        while !ref.isNone {
            seen += 1
            guard seen <= maxPages else {
                throw FirnError.corrupt(path: "", page: ref.page, version: nil,
                                        detail: "overflow chain longer than its value (cycle?)")
            }
            let view = try source.view(ref)
            let (_, next) = try view.overflowPayload()
            release(page: ref.page, birth: ref.birth)
            ref = next
        }
    }

    private func writePage(_ bytes: UnsafeRawBufferPointer, to page: UInt64) throws(FirnError) {
        // The last line of defence: whatever a damaged space tree said, a
        // commit writes only pages it allocated, never a commit slot.
        guard page >= 2, page < allocator.logicalPageCount else {
            throw FirnError.corrupt(path: "", page: page, version: version,
                                    detail: "refusing to write page \(page): outside 2..<\(allocator.logicalPageCount)")
        }
        try io.write(bytes, at: page * UInt64(geometry.pageSize))
        pagesWritten += 1
        bytesWritten += UInt64(geometry.pageSize)
    }
}
