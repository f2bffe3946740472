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
    /// Of `livePins`, the versions pinned in the lock file (readers): the
    /// others stand for versions a commit slot may still hold, whose pages
    /// are counted as waiting, not as held for pinned versions.
    private var readerPins: [UInt64] = []
    private var livePinSet: Set<UInt64> = []
    /// Pins recorded at the last reclaim (`K`) that are no longer live.
    private var releasedPins: [UInt64] = []
    /// The version the transaction started from (set by `reclaim`).
    private var baseVersion: UInt64 = 0
    private let context: WriteContext
    private static var empty: StoredValue { .inline(UnsafeRawBufferPointer(start: nil, count: 0)) }

    /// The base version's space root: where errors about its entries point.
    private let spaceRootPage: UInt64?

    init(root: PageRef, freeCount: UInt64, retiredCount: UInt64, context: WriteContext) {
        tree = MutableTree(root: root, count: 0, context: context)
        spaceRootPage = root.isNone ? nil : root.page
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
            try checkPage(page, entry: "free entry F")
            pages.append(page)
            try cursor.next()
        }
        return pages
    }

    /// A page named by a space entry must be one the writer may write:
    /// never a commit slot, never past the pages in use.
    private func checkPage(_ page: UInt64, entry: @autoclosure () -> String) throws(FirnError) {
        let limit = context.allocator.logicalPageCount
        guard page >= 2, page < limit else {
            throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                    detail: "space tree \(entry()) names page \(page), outside 2..<\(limit)")
        }
    }

    /// A retired entry P(death, birth, page) of the base version: born
    /// before it died, died in a committed version, a page in use.
    private func checkRetired(death: UInt64, birth: UInt64, page: UInt64, baseVersion: UInt64) throws(FirnError) {
        guard birth < death, death <= baseVersion else {
            throw FirnError.corrupt(
                path: "", page: spaceRootPage, version: nil,
                detail: "space tree retired entry P(death \(death), birth \(birth), page \(page)): expected birth < death ≤ \(baseVersion)")
        }
        try checkPage(page, entry: "retired entry P(death \(death), birth \(birth))")
    }

    /// `a - b` for counts kept in the commit record; a count that would go
    /// below zero means the record's counts do not match the space tree.
    private func decrement(_ count: UInt64, _ name: String) throws(FirnError) -> UInt64 {
        guard count > 0 else {
            throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                    detail: "the commit record's \(name) count is lower than the space tree's entries")
        }
        return count - 1
    }

    /// Moves every retired page that no pinned version can see any more to
    /// the free list. Work is bounded by the batches whose pin situation
    /// changed: the one retired two commits ago (the previous slot's version
    /// no longer needs it), and those that a released pin was holding.
    ///
    /// `readerPins` are the versions the lock file pins, the rest of
    /// `allPins` versions a slot may hold; `previousDeath` is the version
    /// of the base record, whose batch waits for the previous slot's
    /// version to move on (for a page commit the base version; for a
    /// checkpoint the checkpoint its log stands on: frames retire nothing).
    func reclaim(baseVersion: UInt64, livePins allPins: [UInt64], readerPins: [UInt64],
                 previousDeath: UInt64) throws(FirnError) {
        // Only committed versions have pages to protect; a pin on anything
        // else (a damaged or foreign lock file) protects nothing.
        let livePins = allPins.filter { $0 >= 1 && $0 <= baseVersion }
        self.livePins = livePins
        self.readerPins = readerPins.filter { $0 >= 1 && $0 <= baseVersion }.sorted()
        self.baseVersion = baseVersion
        let previous = try recordedPins()
        for pin in previous where pin == 0 || pin >= baseVersion {
            throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                    detail: "space tree pinned entry K(\(pin)): expected 1…\(baseVersion - 1), a version before the current one")
        }
        let live = Set(livePins)
        livePinSet = live
        let released = previous.filter { !live.contains($0) }
        releasedPins = released
        // Batch `baseVersion` is seen by the previous slot's version: it waits.
        let last = baseVersion - 1
        var ranges: [(UInt64, UInt64)] = [(last, last)]
        for pin in released {
            let nextLive = livePins.first { $0 > pin } ?? last
            ranges.append((pin + 1, min(nextLive, last)))
        }
        previousBatch = try countBatch(death: previousDeath)
        var reclaimed: [UInt64] = []
        for (low, high) in mergedRanges(ranges) {
            try reclaimBatches(from: low, through: high, livePins: livePins, into: &reclaimed)
        }
        // The reclaimed pages go to the allocator without free-list entries:
        // a small commit reuses about as many pages as the one before it
        // retired, so entering each in the free list here and deleting it
        // again when it is allocated was two space-tree edits per page for
        // nothing. Those left over are entered at `settle`. A page retired
        // twice would be handed out twice: refused as damage.
        reclaimed.sort()
        for i in reclaimed.indices.dropFirst() where reclaimed[i] == reclaimed[i - 1] {
            throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                    detail: "space tree retires page \(reclaimed[i]) more than once")
        }
        for page in reclaimed { try context.allocator.checkOffered(page) }
        context.allocator.addUnlisted(reclaimed)
        for pin in released { try tree.delete(SpaceKey.pinnedVersion(pin)) }
        let previousSet = Set(previous)
        for pin in livePins where !previousSet.contains(pin) {
            try tree.put(SpaceKey.pinnedVersion(pin), Self.empty)
        }
    }

    /// Deletes the retired entries of batches `low…high` that no live pin
    /// sees and appends their pages to `reclaimed`, counted as free.
    private func reclaimBatches(
        from low: UInt64, through high: UInt64, livePins: [UInt64], into reclaimed: inout [UInt64]
    ) throws(FirnError) {
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
                try checkRetired(death: d, birth: b, page: p, baseVersion: baseVersion)
                batch.append((b, p))
                try cursor.next()
            }
            if let missing = try tree.delete(sortedKeys: batch.map { SpaceKey.retiredPage(death: death, birth: $0.birth, page: $0.page) }) {
                let (birth, page) = batch[missing]
                throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                        detail: "space tree retired entry P(death \(death), birth \(birth), page \(page)) vanished while reclaimed")
            }
            try dropEpochEntry(end: death, holder: holder)
            for (_, page) in batch {
                // Free and retired at once is damage; handing such a page
                // out from both lists would write it twice.
                if try withBytes(SpaceKey.freePage(page), { (k) throws(FirnError) in try tree.get(k) }) != nil {
                    throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                            detail: "space tree lists page \(page) both as free and as retired")
                }
                retiredCount = try decrement(retiredCount, "retired page")
                freeCount += 1
                reclaimed.append(page)
            }
            if death == UInt64.max { return }
            death += 1
        }
    }

    /// The checkpoint `end` retired a log region with its other pages
    /// (`LogEpochRecord`): the entry that finds the region goes with the
    /// region's pages, which are born at its epoch and reclaimed when no
    /// pin lies in `epoch … end − 1` (the newest pin below `end`, `holder`,
    /// is older than the epoch). Kept otherwise: a frame of the region is
    /// pinned, and other processes read it through the entry.
    private func dropEpochEntry(end: UInt64, holder: UInt64?) throws(FirnError) {
        let key = SpaceKey.epochEntry(end: end)
        guard let value = try withBytes(key, { (k) throws(FirnError) in try tree.get(k) }) else { return }
        let entry: LogEpochRecord
        switch LogEpochRecord.validated(value, end: end) {
        case let .success(valid): entry = valid
        case let .failure(defect):
            throw FirnError.corrupt(path: "", page: spaceRootPage, version: nil,
                                    detail: "space tree epoch entry E(\(end)) \(defect.description)")
        }
        if let holder, holder >= entry.epoch { return }
        try tree.delete(key)
    }

    /// Records that this commit retires the log region of checkpoint
    /// `record` (its base): while a frame of it is pinned, the entry finds
    /// the region and the checkpoint it builds on.
    func recordRetiredLog(of record: LogEpochRecord) throws(FirnError) {
        try withBytes(record.encoded()) { (bytes) throws(FirnError) in
            try tree.put(SpaceKey.epochEntry(end: context.version), .inline(bytes))
        }
    }

    /// The entries of one batch, and how many a pinned version sees.
    private func countBatch(death: UInt64) throws(FirnError) -> (total: UInt64, held: UInt64) {
        let holder = Self.newestPin(below: death, in: readerPins)
        var cursor = TreeCursor(source: try context.source, root: tree.root)
        try cursor.seek(SpaceKey.retiredPage(death: death, birth: 0, page: 0))
        var total: UInt64 = 0, held: UInt64 = 0
        while cursor.isValid, case let .retired(d, birth, page)? = try cursor.withKey({ SpaceKey.decode($0) }), d == death {
            try checkRetired(death: d, birth: birth, page: page, baseVersion: baseVersion)
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

    /// The history entry C(version) for the counts as they stand.
    private func history(timestamp: UInt64, catalogRoot: PageRef) throws(FirnError) -> HistoryRecord {
        let pageSize = UInt64(context.geometry.pageSize)
        // Older batches keep only what pins hold; the last two keep more.
        let waiting = (retiredByThisCommit - retiredByThisCommitHeld) + (previousBatch.total - previousBatch.held)
        let heldByPins = retiredCount - min(retiredCount, waiting)
        let logical = context.allocator.logicalPageCount
        let fileSize = context.allocator.fileSize
        // Free and retired entries name distinct pages besides the slots,
        // so their counts stay below the page count unless the file lies.
        let (bookkept, overflow) = freeCount.addingReportingOverflow(retiredCount)
        guard !overflow, logical >= 2, bookkept <= logical - 2 else {
            throw FirnError.corrupt(
                path: "", page: spaceRootPage, version: context.version,
                detail: "free (\(freeCount)) and retired (\(retiredCount)) pages exceed the \(logical &- 2) pages besides the slots")
        }
        return HistoryRecord(
            version: context.version, timestampNanoseconds: timestamp, fileBytes: fileSize,
            liveBytes: (logical - bookkept) * pageSize,
            freeBytes: freeCount * pageSize + (fileSize - logical * pageSize),
            heldByPinsBytes: heldByPins * pageSize,
            pagesWritten: context.allocator.allocations, logicalPageCount: logical,
            catalogRoot: catalogRoot)
    }

    /// Records this commit's allocations, retirements and history entry and
    /// writes the space tree. Writing the tree itself allocates and retires
    /// pages, which changes the tree again; this repeats until nothing moves
    /// (two or three rounds: rewritten nodes keep their pages).
    func settle(timestamp: UInt64, catalogRoot: PageRef) throws(FirnError) -> (root: PageRef, history: HistoryRecord) {
        let version = context.version
        var record: HistoryRecord? = nil
        // The history keeps the last `retained` commits, trimmed in batches:
        // deleting one old entry per commit rewrote a leaf far from the
        // others every commit (a page per small commit, for nothing).
        if version > HistoryRecord.retained, version % HistoryRecord.trimBatch == 0 {
            let newestDropped = version - HistoryRecord.retained
            let oldestDropped = newestDropped > HistoryRecord.trimBatch ? newestDropped - HistoryRecord.trimBatch + 1 : 1
            for old in oldestDropped...newestDropped where !livePinSet.contains(old) {
                try tree.delete(SpaceKey.historyEntry(old))
            }
        }
        // A pinned version's entry outlives the window (it is how other
        // processes read the version): it goes once the pin is released.
        for pin in releasedPins where pin < version - min(version, HistoryRecord.retained) {
            try tree.delete(SpaceKey.historyEntry(pin))
        }
        for round in 0..<64 {
            let (consumed, consumedUnlisted) = context.allocator.takeConsumed()
            guard consumedUnlisted <= freeCount else {
                throw FirnError.corrupt(path: "", page: spaceRootPage, version: version,
                                        detail: "the commit record's free page count is lower than the space tree's entries")
            }
            freeCount -= consumedUnlisted
            let retired = context.retired
            context.retired.removeAll(keepingCapacity: true)
            let recycled = context.recycled
            context.recycled.removeAll(keepingCapacity: true)
            for page in consumed {
                guard try tree.delete(SpaceKey.freePage(page)) else {
                    throw FirnError.corrupt(path: "", page: page, version: version,
                                            detail: "allocated free page has no free-list entry")
                }
                freeCount = try decrement(freeCount, "free page")
            }
            let holder = Self.newestPin(below: version, in: readerPins)
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
            // Reclaimed pages this commit did not use get their free-list
            // entries (already counted free by `reclaim`) once the first
            // round has written the space tree, whose own new pages came
            // from them too.
            if round > 0 {
                for page in context.allocator.takeUnlisted() {
                    guard try tree.put(SpaceKey.freePage(page), Self.empty) else {
                        throw FirnError.corrupt(path: "", page: spaceRootPage, version: version,
                                                detail: "space tree lists page \(page) both as free and as retired")
                    }
                }
            }
            let current = try history(timestamp: timestamp, catalogRoot: catalogRoot)
            if current != record {
                record = current
                try withBytes(current.encoded()) { (bytes) throws(FirnError) in
                    try tree.put(SpaceKey.historyEntry(version), .inline(bytes))
                }
            }
            try tree.assignPages()
            // Settled when placing the tree's nodes left nothing to record:
            // no page consumed, retired or recycled by it, no reclaimed page
            // without its entry, and the history entry still describes the
            // result. Then the nodes are sealed, once; sealing takes no page,
            // which the same check confirms.
            func settled() throws(FirnError) -> Bool {
                guard round > 0, context.allocator.consumed.isEmpty, context.allocator.consumedUnlisted == 0,
                      context.retired.isEmpty, context.recycled.isEmpty, !context.allocator.hasUnlisted, let record else { return false }
                return try history(timestamp: timestamp, catalogRoot: catalogRoot) == record
            }
            if try settled() {
                let root = try tree.write()
                if try settled(), let record { return (root, record) }
            }
        }
        throw FirnError.misuse("space bookkeeping did not settle in 64 rounds (version \(version))")
    }
}
