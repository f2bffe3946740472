/// Hands out page numbers to a write transaction. Candidates, in order:
/// the pages the space ledger reclaimed when the transaction began (free
/// now, but not yet entered in the free list, so taking one costs no
/// space-tree edit), then free pages from the space tree's free list (read
/// a batch at a time, lowest numbers first, so commit cost does not grow
/// with the free list), then fresh pages past the end of the file, growing
/// the file ahead of need.
///
/// It keeps a commit's short-lived pages together. Pages written by one
/// commit are mostly replaced together too: the roots, branches, catalog
/// and space-tree pages that every commit rewrites. Those (`.run`) go to
/// runs of consecutive pages — the page after the run's last one, else
/// the start of the first run as long as the longest of the store's recent
/// commits needed (`RecentRunLengths`), else past the end of the file
/// while free pages are few (`mayGrowForRun`), else the longest run among
/// the lowest candidates — so a run comes back whole two commits later,
/// and `WriteContext.flush` writes it with one gathered write that the
/// device takes as one request at the sync. Long-lived pages (`.hole`:
/// leaves of named trees, space-tree pages off its rightmost path, see
/// `MutableTree.Churn`) take the shortest pieces of free pages, isolated
/// pages first, which is where such pages were before, and so do not cut
/// the runs.
final class PageAllocator {
    let pageSize: UInt64
    /// One past the highest page in use; fresh pages come from here.
    private(set) var logicalPageCount: UInt64
    /// The file's size in bytes, at least `logicalPageCount` pages.
    private(set) var fileSize: UInt64
    /// Candidate free pages, ascending by page. Those handed out stay,
    /// marked taken: a big reclaimed batch would make each removal a long move.
    private var pool: [Candidate] = []

    private struct Candidate {
        let page: UInt64
        /// The page has a free-list entry (else it was reclaimed by this transaction).
        let listed: Bool
        var taken = false
    }
    /// Index of the lowest candidate not taken (every one below is taken).
    private var low = 0
    /// Candidates not taken.
    private var remaining = 0
    /// The last page handed out for a run: its successor continues it.
    private var lastRunPage: UInt64?
    /// Listed free pages handed out: their free-list entries are removed at commit.
    private(set) var consumed: [UInt64] = []
    /// Unlisted pages handed out, not yet taken off the free count.
    private(set) var consumedUnlisted: UInt64 = 0
    /// Distinct pages handed out (free or fresh): the pages this commit writes.
    private(set) var allocations: UInt64 = 0
    private var nextFreeKey: UInt64 = 0
    private var freeListExhausted = false
    /// The free list's first batch, read (and each entry checked) at the
    /// transaction's first allocation but not yet among the candidates.
    private var prefetched: [UInt64]?
    private var prefetchDone = false
    /// Free-list pages not yet among the candidates.
    private var moreFree: Bool { prefetched != nil || !freeListExhausted }
    private let io: any FileIO
    /// Reads up to `limit` free page numbers at or after `from`, ascending.
    var readFree: (_ from: UInt64, _ limit: Int) throws(FirnError) -> [UInt64] = { _, _ in [] }
    /// Refuses a page the ledger offers that the base version still uses
    /// (`ReuseCheck`): called for each page as it joins the candidates.
    var checkOffered: (_ page: UInt64) throws(FirnError) -> Void = { _ in }

    /// What a page is for: where it is best placed.
    enum Kind {
        /// Rewritten by most commits (branches, catalog, space tree): kept in runs.
        case run
        /// Long-lived (`MutableTree.Churn`): fills isolated pages and the pieces of broken runs.
        case hole
    }

    /// How many of the lowest candidates are searched for a run or a
    /// piece: bounds the work per page whatever the pool's size.
    static let searchWindow = 256
    /// Free-list entries read at a time.
    static let freeBatch = 256

    /// The run length a new run should have: the most run pages one of
    /// the store's recent commits took (`RecentRunLengths`, at most
    /// `maxRunHint`), so a commit like them finds its pages in one run.
    private let runHint: Int
    /// Run pages handed out (for the next commit's hint).
    private(set) var runAllocations = 0
    static let maxRunHint = 16

    init(pageSize: Int, logicalPageCount: UInt64, fileSize: UInt64, io: any FileIO, runHint: Int = 0) {
        self.runHint = min(max(runHint, 1), Self.maxRunHint)
        self.pageSize = UInt64(pageSize)
        self.logicalPageCount = logicalPageCount
        self.fileSize = fileSize
        self.io = io
    }

    /// Adds pages the ledger has just made free without a free-list entry
    /// (the caller has checked each is in `[2, logicalPageCount)`, passed
    /// it to `checkOffered` and accounted it as free). They are handed out before listed pages.
    func addUnlisted(_ pages: [UInt64]) {
        guard !pages.isEmpty else { return }
        merge(pages.sorted(), listed: false)
    }

    /// Takes back every unlisted candidate not handed out: the caller
    /// enters them in the free list. They leave the pool for good — if
    /// needed again they are read back from the free list like any other
    /// free page, so no page can be handed out twice.
    func takeUnlisted() -> [UInt64] {
        var out: [UInt64] = []
        var kept: [Candidate] = []
        for candidate in pool[low...] where !candidate.taken {
            if candidate.listed {
                kept.append(candidate)
            } else {
                out.append(candidate.page)
            }
        }
        guard !out.isEmpty else { return [] }
        replacePool(kept)
        return out
    }

    /// True while candidates without a free-list entry remain.
    var hasUnlisted: Bool {
        pool[low...].contains { !$0.taken && !$0.listed }
    }

    func allocate(_ kind: Kind = .run) throws(FirnError) -> UInt64 {
        try prefetchFreeList()
        if remaining == 0 { try readFreeBatch() }
        allocations += 1
        switch kind {
        case .hole:
            if remaining > 0 { return take(shortestPiece()) }
        case .run:
            runAllocations += 1
            if let index = continuation() { return takeForRun(index) }
            if let last = lastRunPage {
                // The run in progress is used up. At the end of the file it
                // goes on past it; elsewhere the page comes from the
                // shortest piece, not from the start of another whole run,
                // which would break that run for good.
                if last &+ 1 == logicalPageCount && mayGrowForRun { return try freshForRun() }
                if remaining > 0 { return takeForRun(shortestPiece()) }
            }
            var run = firstRun(atLeast: runHint)
            if run.length < runHint && moreFree {
                // No run that long among the reclaimed pages: look in the free list too.
                try readFreeBatch()
                run = firstRun(atLeast: runHint)
            }
            if remaining > 0 && (run.length >= runHint || !mayGrowForRun) { return takeForRun(run.start) }
            return try freshForRun()
        }
        return try fresh()
    }

    /// Reads the free list's first batch at the transaction's first
    /// allocation. The reclaimed pages often suffice, but the batch is read
    /// and checked anyway, as every commit did before: a damaged entry (a
    /// commit slot, a page past the end) is refused at the first commit
    /// after the damage, not whenever a commit happens to need the free list.
    private func prefetchFreeList() throws(FirnError) {
        guard !prefetchDone else { return }
        prefetchDone = true
        prefetched = try readFreeList()
    }

    /// `count` consecutive pages, for a commit log region: the lowest run of
    /// free pages that long among the candidates (a region retired two
    /// checkpoints ago normally comes back whole), else past the end of
    /// the file. Ask before any other page of the commit, so the pages of
    /// a freed region are still together.
    func allocateContiguous(_ count: Int) throws(FirnError) -> UInt64 {
        precondition(count >= 1)
        try prefetchFreeList()
        func search() -> Int? {
            var found: Int?
            forEachRun { start, length in
                if length >= count { found = start }
                return found != nil
            }
            return found
        }
        var found = search()
        if found == nil && moreFree {
            try readFreeBatch()
            found = search()
        }
        allocations += UInt64(count)
        if let start = found {
            let first = pool[start].page
            for index in start..<start + count { _ = take(index) }
            return first
        }
        let first = logicalPageCount
        let (end, overflow) = first.addingReportingOverflow(UInt64(count))
        guard !overflow else { throw FirnError.invalidArgument("the file cannot grow by \(count) pages") }
        try ensureFileHolds(pages: end)
        logicalPageCount = end
        return first
    }

    /// Free pages (listed and reclaimed) when the transaction began, set
    /// after reclaiming when no version is pinned; `nil` forbids growing
    /// for runs.
    var freePagesAtStart: UInt64?

    /// Whether a run may start past the end of the file rather than in
    /// the pieces of broken runs. A run broken once (a commit that needed
    /// one page more than the run it reused, a space-tree split) stays
    /// broken: its pieces come back together, commit after commit, and
    /// each commit then writes three or four ranges, which the device
    /// takes as as many requests at the sync (a small commit's fdatasync
    /// took about 290 µs with its pages in six places and 190 µs in one,
    /// on this project's test machine). So a run may take pages past the
    /// logical end while the free pages are a small part of the file — at
    /// most a thirty-second, or `runSlackMinimum` pages in a small file —
    /// and the pieces are left to `.hole` pages, which take the shortest
    /// pieces first; the file holds at most that slack more than it would
    /// otherwise. Not while a version is pinned (`freePagesAtStart` is then
    /// nil): the pinned pages already make the file grow, and runs would
    /// only add to it.
    private var mayGrowForRun: Bool {
        guard let free = freePagesAtStart else { return false }
        return free < max(Self.runSlackMinimum, logicalPageCount / Self.runSlackDivisor)
    }
    static let runSlackMinimum: UInt64 = 16
    static let runSlackDivisor: UInt64 = 32

    private func freshForRun() throws(FirnError) -> UInt64 {
        let page = try fresh()
        lastRunPage = page
        return page
    }

    /// Puts the next batch of the free list among the candidates.
    private func readFreeBatch() throws(FirnError) {
        let batch: [UInt64]
        if let held = prefetched {
            prefetched = nil
            batch = held
        } else {
            guard !freeListExhausted else { return }
            batch = try readFreeList()
        }
        if !batch.isEmpty { merge(batch, listed: true) }
    }

    /// The next batch of the free list (its entries checked by `readFree`).
    private func readFreeList() throws(FirnError) -> [UInt64] {
        guard !freeListExhausted else { return [] }
        let batch = try readFree(nextFreeKey, Self.freeBatch)
        for page in batch { try checkOffered(page) }
        if let last = batch.last { nextFreeKey = last &+ 1 }
        if batch.count < Self.freeBatch || nextFreeKey == 0 { freeListExhausted = true }
        return batch
    }

    private func takeForRun(_ index: Int) -> UInt64 {
        let page = take(index)
        lastRunPage = page
        return page
    }

    private func take(_ index: Int) -> UInt64 {
        pool[index].taken = true
        remaining -= 1
        while low < pool.count && pool[low].taken { low += 1 }
        let page = pool[index].page
        if pool[index].listed { consumed.append(page) } else { consumedUnlisted += 1 }
        return page
    }

    /// A page past the end; a run in progress continues there (the next
    /// fresh page follows it).
    private func fresh() throws(FirnError) -> UInt64 {
        let page = logicalPageCount
        try ensureFileHolds(pages: page + 1)
        logicalPageCount = page + 1
        return page
    }

    /// Listed pages handed out since the last call (for the free-list
    /// deletions), and how many unlisted ones (free count only).
    func takeConsumed() -> (listed: [UInt64], unlisted: UInt64) {
        defer {
            consumed.removeAll(keepingCapacity: true)
            consumedUnlisted = 0
        }
        return (consumed, consumedUnlisted)
    }

    /// The candidate right after the run's last page, if free.
    private func continuation() -> Int? {
        guard let last = lastRunPage, last < UInt64.max else { return nil }
        let wanted = last + 1
        var lo = low, hi = pool.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if pool[mid].page < wanted { lo = mid + 1 } else { hi = mid }
        }
        guard lo < pool.count, pool[lo].page == wanted, !pool[lo].taken else { return nil }
        return lo
    }

    /// The first candidate of the lowest run of at least `wanted`
    /// consecutive free pages among the lowest `searchWindow` candidates,
    /// else of the longest run there (the lowest on a tie); and the run's
    /// length (0 with no candidates).
    private func firstRun(atLeast wanted: Int) -> (start: Int, length: Int) {
        var best = (start: low, length: 0)
        forEachRun { start, length in
            if length > best.length { best = (start, length) }
            return length >= wanted
        }
        return best
    }

    /// A candidate from the shortest run of free pages among the lowest
    /// `searchWindow` (its first page; the lowest such run on a tie): an
    /// isolated page when there is one, which is where long-lived pages
    /// were before, else a piece of a broken run — never the start of a
    /// long run while a shorter one is there.
    private func shortestPiece() -> Int {
        var best = (start: low, length: Int.max)
        forEachRun { start, length in
            if length < best.length { best = (start, length) }
            return length == 1
        }
        return best.start
    }

    /// Calls `body` with each run of consecutive free pages among the
    /// lowest `searchWindow` candidates not taken, lowest first, as its
    /// first candidate's index and its length, until `body` returns true.
    private func forEachRun(_ body: (_ start: Int, _ length: Int) -> Bool) {
        var start = low, length = 0
        var previous: UInt64? = nil
        var seen = 0
        var i = low
        while i < pool.count && seen < Self.searchWindow {
            if !pool[i].taken {
                seen += 1
                if let previous, previous < UInt64.max, pool[i].page == previous + 1 {
                    length += 1
                } else {
                    if length > 0, body(start, length) { return }
                    start = i
                    length = 1
                }
                previous = pool[i].page
            } else {
                previous = nil
            }
            i += 1
        }
        if length > 0 { _ = body(start, length) }
    }

    /// Merges sorted `pages` into the pool, dropping taken entries.
    private func merge(_ pages: [UInt64], listed isListed: Bool) {
        var merged: [Candidate] = []
        merged.reserveCapacity(remaining + pages.count)
        var i = low, j = 0
        while i < pool.count || j < pages.count {
            if i < pool.count && pool[i].taken {
                i += 1
                continue
            }
            if j >= pages.count || (i < pool.count && pool[i].page <= pages[j]) {
                // A page already a candidate is not added twice.
                if j < pages.count && pool[i].page == pages[j] { j += 1 }
                merged.append(pool[i])
                i += 1
            } else {
                merged.append(Candidate(page: pages[j], listed: isListed))
                j += 1
            }
        }
        replacePool(merged)
    }

    private func replacePool(_ candidates: [Candidate]) {
        pool = candidates
        low = 0
        remaining = candidates.count
    }

    /// Grows the file in steps (a sixty-fourth of its size, 16 pages to 64
    /// MiB): extension stays rare, and the unused tail stays small (with a
    /// sixteenth, a file that had just grown carried 6 % of unused pages).
    func ensureFileHolds(pages: UInt64) throws(FirnError) {
        let needed = pages * pageSize
        guard needed > fileSize else { return }
        let step = min(max(16 * pageSize, fileSize / 64), 64 << 20)
        var target = max(needed, fileSize + step)
        target = (target + pageSize - 1) / pageSize * pageSize
        try io.extend(to: target)
        fileSize = target
    }
}

/// The run pages (`PageAllocator.Kind.run`) of a store's last few commits:
/// the next commit looks for a free run as long as the longest, so a
/// commit one page bigger than the last (a split, a history batch) still
/// finds its pages in one run, and the run it returns is whole.
struct RecentRunLengths {
    static let kept = 8
    private var lengths: [Int] = []
    private var next = 0

    mutating func record(_ length: Int) {
        if lengths.count < Self.kept {
            lengths.append(length)
        } else {
            lengths[next] = length
            next = (next + 1) % Self.kept
        }
    }

    var longest: Int { lengths.max() ?? 0 }
}
