/// Hands out page numbers to a write transaction: first free pages from the
/// space tree (lowest numbers first, read a batch at a time so commit cost
/// does not grow with the free list), then fresh pages past the end of the
/// file, growing the file ahead of need.
final class PageAllocator {
    let pageSize: UInt64
    /// One past the highest page in use; fresh pages come from here.
    private(set) var logicalPageCount: UInt64
    /// The file's size in bytes, at least `logicalPageCount` pages.
    private(set) var fileSize: UInt64
    /// Free pages read from the space tree and not yet handed out (descending).
    private var reserve: [UInt64] = []
    /// Free pages handed out: their free-list entries are removed at commit.
    private(set) var consumed: [UInt64] = []
    /// Distinct pages handed out (free or fresh): the pages this commit writes.
    private(set) var allocations: UInt64 = 0
    private var nextFreeKey: UInt64 = 0
    private var freeListExhausted = false
    private let io: any FileIO
    /// Reads up to `limit` free page numbers at or after `from`, ascending.
    var readFree: (_ from: UInt64, _ limit: Int) throws(FirnError) -> [UInt64] = { _, _ in [] }

    init(pageSize: Int, logicalPageCount: UInt64, fileSize: UInt64, io: any FileIO) {
        self.pageSize = UInt64(pageSize)
        self.logicalPageCount = logicalPageCount
        self.fileSize = fileSize
        self.io = io
    }

    func allocate() throws(FirnError) -> UInt64 {
        if reserve.isEmpty && !freeListExhausted {
            let batch = try readFree(nextFreeKey, 256)
            if let last = batch.last { nextFreeKey = last + 1 }
            if batch.count < 256 { freeListExhausted = true }
            reserve = batch.reversed()
        }
        allocations += 1
        if let page = reserve.popLast() {
            consumed.append(page)
            return page
        }
        let page = logicalPageCount
        try ensureFileHolds(pages: page + 1)
        logicalPageCount = page + 1
        return page
    }

    /// Pages handed out since the last call (for the free-list deletions).
    func takeConsumed() -> [UInt64] {
        defer { consumed.removeAll(keepingCapacity: true) }
        return consumed
    }

    /// Grows the file in steps (a sixteenth of its size, 16 pages to 64 MiB):
    /// extension stays rare, and the unused tail stays small.
    func ensureFileHolds(pages: UInt64) throws(FirnError) {
        let needed = pages * pageSize
        guard needed > fileSize else { return }
        let step = min(max(16 * pageSize, fileSize / 16), 64 << 20)
        var target = max(needed, fileSize + step)
        target = (target + pageSize - 1) / pageSize * pageSize
        try io.extend(to: target)
        fileSize = target
    }
}
