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
                cachedSource = PageSource(map: map, pageSize: geometry.pageSize, pageLimit: allocator.logicalPageCount,
                                          checkedVersion: cachedSource.checkedVersion)
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
    /// The same pages as a set, for `reuseCheck` (R2: a page this commit
    /// replaces is one the base reaches, never one to write).
    private var retiredPages = Set<UInt64>()
    /// Checks each page below the base's logical end before it is written
    /// (FORMAT.md 7, "What a writer checks before reusing a page"); nil
    /// writes unchecked.
    var reuseCheck: ReuseCheck?
    /// Pages written by this transaction that no longer hold anything.
    var recycled: [UInt64] = []
    /// Overflow chains written by this transaction, by head page: their pages
    /// may lie past the base version's pages, so they are not read back.
    private var chains: [UInt64: [UInt64]] = [:]
    var pagesWritten: UInt64 = 0
    var bytesWritten: UInt64 = 0
    /// Sealed nodes not yet written, by page. Nodes are written once, at the
    /// end of the commit (`flush`): the space tree is written in rounds until
    /// its own allocations settle, and writing each round rewrote the same
    /// pages two or three times per commit. The nodes are in memory anyway
    /// (the trees keep them until the transaction ends), so waiting costs
    /// no memory; writing in page order also helps the disk.
    private var pending: [UInt64: Node] = [:]
    /// The nodes the store's last commit wrote, when this transaction
    /// builds on that commit's version: cloned instead of copied from the map.
    var writtenNodes: WrittenNodes?
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

    func allocate(_ kind: PageAllocator.Kind = .run) throws(FirnError) -> UInt64 {
        if let page = recycled.popLast() { return page }
        return try allocator.allocate(kind)
    }

    /// A page leaves the tree: reused at once when this transaction wrote it,
    /// otherwise retired until no pinned version can see it.
    func release(page: UInt64, birth: UInt64) {
        if birth >= version {
            recycle(page)
        } else {
            retired.append((page, birth))
            if reuseCheck != nil { retiredPages.insert(page) }
        }
    }

    /// A page this transaction wrote holds nothing any more: a node sealed
    /// for it is not written (unless the page is reused).
    func recycle(_ page: UInt64) {
        pending[page] = nil
        recycled.append(page)
    }

    /// Seals a node's page (kept in page layout); `flush` writes it.
    func writeNode(_ node: Node, page: UInt64) throws(FirnError) -> UInt32 {
        try checkWritable(page)
        let (_, crc) = node.page.seal(pageNumber: page, birth: version, level: node.level)
        pending[page] = node
        return crc
    }

    /// Writes every sealed node, in page order, each once; consecutive
    /// pages (the allocator hands out runs) go in one gathered write. A
    /// node is sealed again when it changes after `writeNode`, so its
    /// buffer is the image whose checksum its parent holds.
    func flush() throws(FirnError) {
        let nodes = pending.sorted(by: { $0.key < $1.key })
        pending.removeAll()
        var start = 0
        while start < nodes.count {
            var end = start + 1
            while end < nodes.count, nodes[end].key == nodes[end - 1].key + 1 { end += 1 }
            let buffers = nodes[start..<end].map { UnsafeRawBufferPointer(start: $0.value.page.base, count: geometry.pageSize) }
            try writePages(buffers, from: nodes[start].key)
            start = end
        }
    }

    /// Writes a value as an overflow chain, tail first so every reference
    /// carries the checksum of the page it points to; returns the head.
    func writeOverflow(_ bytes: UnsafeRawBufferPointer) throws(FirnError) -> PageRef {
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

    /// The last line of defence: whatever a damaged space tree said, a
    /// commit writes only pages it allocated, never a commit slot.
    private func checkWritable(_ page: UInt64) throws(FirnError) {
        guard page >= 2, page < allocator.logicalPageCount else {
            throw FirnError.corrupt(path: "", page: page, version: version,
                                    detail: "refusing to write page \(page): outside 2..<\(allocator.logicalPageCount)")
        }
    }

    /// Refuses to write `page` when the base version still uses it by
    /// the cheap rules of `ReuseCheck` (every write passes here; a commit
    /// log region, which frames write later, is checked by its commit).
    func checkReusable(_ page: UInt64) throws(FirnError) {
        try reuseCheck?.check(page, retired: retiredPages)
    }

    /// Writes zeros over `pages`, which this commit allocated and no
    /// version has used (`PageCommit.write`, a new log region's fresh pages).
    func writeZeros(pages: Range<UInt64>) throws(FirnError) {
        guard !pages.isEmpty else { return }
        let zeros = [UInt8](repeating: 0, count: geometry.pageSize)
        try withBytes(zeros) { (page) throws(FirnError) in
            try writePages([UnsafeRawBufferPointer](repeating: page, count: pages.count), from: pages.lowerBound)
        }
    }

    private func writePage(_ bytes: UnsafeRawBufferPointer, to page: UInt64) throws(FirnError) {
        try writePages([bytes], from: page)
    }

    /// Writes `pages` (each one page long) to consecutive pages from
    /// `first`, in one gathered write, each page checked writable first.
    private func writePages(_ pages: [UnsafeRawBufferPointer], from first: UInt64) throws(FirnError) {
        for offset in 0..<UInt64(pages.count) {
            try checkWritable(first + offset)
            try checkReusable(first + offset)
        }
        try io.write(gathering: pages, at: first * UInt64(geometry.pageSize))
        pagesWritten += UInt64(pages.count)
        bytesWritten += UInt64(pages.count) * UInt64(geometry.pageSize)
    }
}
