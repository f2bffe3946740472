/// The free-space bookkeeping of one write transaction, kept in the space
/// tree. Pages replaced in version `d` and born in version `b` are seen by
/// versions `b…d-1`; they become free once no pinned version lies in that
/// interval and `d-1` is no longer in a commit slot (so both slots always
/// describe intact versions). An old pin keeps only its own pages; the pages
/// of every version after it are reused.
final class SpaceLedger {
    let tree: MutableTree
    private(set) var freeCount: UInt64
    private(set) var retiredCount: UInt64
    /// Pages this commit retired (seen by the previous version, not by a pin).
    private(set) var retiredByThisCommit: UInt64 = 0
    /// Of those, the pages a pinned version also sees.
    private var retiredByThisCommitHeld: UInt64 = 0
    /// Pages the previous commit retired, and how many of them pins see:
    /// they wait one more commit (the previous slot's version sees them).
    private var previousBatch: (total: UInt64, held: UInt64) = (0, 0)
    private var livePins: [UInt64] = []
    private let context: WriteContext
    private static var empty: StoredValue { .inline(UnsafeRawBufferPointer(start: nil, count: 0)) }

    init(root: PageRef, freeCount: UInt64, retiredCount: UInt64, context: WriteContext) {
        tree = MutableTree(root: root, count: 0, context: context)
        self.freeCount = freeCount
        self.retiredCount = retiredCount
        self.context = context
    }

    /// Up to `limit` free pages numbered `from` or more, ascending.
    func readFree(from: UInt64, limit: Int) throws(FirnError) -> [UInt64] {
        var cursor = TreeCursor(source: try context.source, root: tree.root)
        try cursor.seek(SpaceKey.freePage(from))
        var pages: [UInt64] = []
        while pages.count < limit, cursor.isValid {
            guard case let .free(page)? = try cursor.withKey({ SpaceKey.decode($0) }) else { break }
            pages.append(page)
            try cursor.next()
        }
        return pages
    }

    /// Moves every retired page that no pinned version can see any more to
    /// the free list. Work is bounded by the batches whose pin situation
    /// changed: the one retired two commits ago (the previous slot's version
    /// no longer needs it), and those that a released pin was holding.
    func reclaim(baseVersion: UInt64, livePins: [UInt64]) throws(FirnError) {
        self.livePins = livePins
        let previous = try recordedPins()
        let live = Set(livePins)
        let released = previous.filter { !live.contains($0) }
        // Batch `baseVersion` is seen by the previous slot's version: it waits.
        let last = baseVersion - 1
        var ranges: [(UInt64, UInt64)] = [(last, last)]
        for pin in released {
            let nextLive = livePins.first { $0 > pin } ?? last
            ranges.append((pin + 1, min(nextLive, last)))
        }
        previousBatch = try countBatch(death: baseVersion)
        for (low, high) in mergedRanges(ranges) {
            try reclaimBatches(from: low, through: high, livePins: livePins)
        }
        for pin in released { try tree.delete(SpaceKey.pinnedVersion(pin)) }
        let previousSet = Set(previous)
        for pin in livePins where !previousSet.contains(pin) {
            try tree.put(SpaceKey.pinnedVersion(pin), Self.empty)
        }
    }

    private func reclaimBatches(from low: UInt64, through high: UInt64, livePins: [UInt64]) throws(FirnError) {
        var death = low
        while death <= high {
            var cursor = TreeCursor(source: try context.source, root: tree.root)
            try cursor.seek(SpaceKey.retiredPage(death: death, birth: 0, page: 0))
            guard cursor.isValid, case let .retired(found, _, _)? = try cursor.withKey({ SpaceKey.decode($0) }),
                  found <= high else { return }
            death = found
            // The newest pin older than `death` decides: pages born after it are seen by no pin.
            let holder = Self.newestPin(below: death, in: livePins)
            try cursor.seek(SpaceKey.retiredPage(death: death, birth: holder.map { $0 + 1 } ?? 0, page: 0))
            var batch: [(birth: UInt64, page: UInt64)] = []
            while cursor.isValid, case let .retired(d, b, p)? = try cursor.withKey({ SpaceKey.decode($0) }), d == death {
                batch.append((b, p))
                try cursor.next()
            }
            for (birth, page) in batch {
                try tree.delete(SpaceKey.retiredPage(death: death, birth: birth, page: page))
                try tree.put(SpaceKey.freePage(page), Self.empty)
                retiredCount -= 1
                freeCount += 1
            }
            if death == UInt64.max { return }
            death += 1
        }
    }

    /// The entries of one batch, and how many a pinned version sees.
    private func countBatch(death: UInt64) throws(FirnError) -> (total: UInt64, held: UInt64) {
        let holder = Self.newestPin(below: death, in: livePins)
        var cursor = TreeCursor(source: try context.source, root: tree.root)
        try cursor.seek(SpaceKey.retiredPage(death: death, birth: 0, page: 0))
        var total: UInt64 = 0, held: UInt64 = 0
        while cursor.isValid, case let .retired(d, birth, _)? = try cursor.withKey({ SpaceKey.decode($0) }), d == death {
            total += 1
            if let holder, birth <= holder { held += 1 }
            try cursor.next()
        }
        return (total, held)
    }

    static func newestPin(below version: UInt64, in sortedPins: [UInt64]) -> UInt64? {
        var low = 0, high = sortedPins.count
        while low < high {
            let mid = (low + high) >> 1
            if sortedPins[mid] < version { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? sortedPins[low - 1] : nil
    }

    private func mergedRanges(_ ranges: [(UInt64, UInt64)]) -> [(UInt64, UInt64)] {
        var out: [(UInt64, UInt64)] = []
        for (low, high) in ranges.filter({ $0.0 <= $0.1 }).sorted(by: { $0.0 < $1.0 }) {
            if let last = out.last, low <= last.1 &+ 1 {
                out[out.count - 1].1 = max(last.1, high)
            } else {
                out.append((low, high))
            }
        }
        return out
    }

    /// The versions recorded as pinned at the last reclaim (`K` entries).
    private func recordedPins() throws(FirnError) -> [UInt64] {
        var cursor = TreeCursor(source: try context.source, root: tree.root)
        try cursor.seek([SpaceKey.pinned])
        var out: [UInt64] = []
        while cursor.isValid, case let .pinned(v)? = try cursor.withKey({ SpaceKey.decode($0) }) {
            out.append(v)
            try cursor.next()
        }
        return out
    }

    /// Records this commit's allocations, retirements and history entry and
    /// writes the space tree. Writing the tree itself allocates and retires
    /// pages, which changes the tree again; this repeats until nothing moves
    /// (two or three rounds: rewritten nodes keep their pages).
    func settle(timestamp: UInt64, catalogRoot: PageRef) throws(FirnError) -> (root: PageRef, history: HistoryRecord) {
        let version = context.version
        let pageSize = UInt64(context.geometry.pageSize)
        var record: HistoryRecord? = nil
        if version > HistoryRecord.retained {
            try tree.delete(SpaceKey.historyEntry(version - HistoryRecord.retained))
        }
        for round in 0..<64 {
            let consumed = context.allocator.takeConsumed()
            let retired = context.retired
            context.retired.removeAll(keepingCapacity: true)
            let recycled = context.recycled
            context.recycled.removeAll(keepingCapacity: true)
            for page in consumed {
                guard try tree.delete(SpaceKey.freePage(page)) else {
                    throw FirnError.corrupt(path: "", page: page, version: version,
                                            detail: "allocated free page has no free-list entry")
                }
                freeCount -= 1
            }
            let holder = Self.newestPin(below: version, in: livePins)
            for (page, birth) in retired {
                try tree.put(SpaceKey.retiredPage(death: version, birth: birth, page: page), Self.empty)
                retiredCount += 1
                retiredByThisCommit += 1
                if let holder, birth <= holder { retiredByThisCommitHeld += 1 }
            }
            for page in recycled {
                try tree.put(SpaceKey.freePage(page), Self.empty)
                freeCount += 1
            }
            // Older batches keep only what pins hold; the last two keep more.
            let waiting = (retiredByThisCommit - retiredByThisCommitHeld) + (previousBatch.total - previousBatch.held)
            let heldByPins = retiredCount - min(retiredCount, waiting)
            let logical = context.allocator.logicalPageCount
            let fileSize = context.allocator.fileSize
            let current = HistoryRecord(
                version: version, timestampNanoseconds: timestamp, fileBytes: fileSize,
                liveBytes: (logical - freeCount - retiredCount) * pageSize,
                freeBytes: freeCount * pageSize + (fileSize - logical * pageSize),
                heldByPinsBytes: heldByPins * pageSize,
                pagesWritten: context.allocator.allocations, logicalPageCount: logical,
                catalogRoot: catalogRoot)
            let settled = round > 0 && consumed.isEmpty && retired.isEmpty && recycled.isEmpty && current == record
            if !settled {
                record = current
                try withBytes(current.encoded()) { (bytes) throws(FirnError) in
                    try tree.put(SpaceKey.historyEntry(version), .inline(bytes))
                }
            }
            let root = try tree.write()
            if settled, context.allocator.consumed.isEmpty, context.retired.isEmpty, context.recycled.isEmpty {
                return (root, current)
            }
        }
        throw FirnError.misuse("space bookkeeping did not settle in 64 rounds (version \(version))")
    }
}
