/// What a writer checks before it overwrites a page the space ledger gave
/// it (FORMAT.md 7, "What a writer checks before reusing a page"). The
/// ledger is file data: a checksum-valid free entry may name a page the
/// base version still reaches, and writing a node there would break the
/// tree for good (the page reached twice, the entries under it gone)
/// while every checksum still holds. `verify` proves the whole accounting
/// invariant with a walk of every page; a commit cannot afford that, so it
/// checks what is cheap and sound, page by page, just before the write:
///
/// - R1: the page is none of the base record's roots (catalog, space) and
///   not in its commit log region (the record names those: O(1)).
/// - R2: the page is not one this commit replaces: every page a commit
///   retires is one the base version reaches (a set of the pages retired
///   so far, complete by the time the nodes are written).
/// - R3: a page whose header names it, whose checksum is correct and whose
///   birth is the base record's version looks like a page the base's own
///   commit wrote. Such a page may legitimately be free (an overflow page
///   the commit wrote when a value was put and dropped again before it
///   committed; a page of a commit of that version number that a power
///   loss undid, made again); so before refusing, it is looked up among
///   the pages the base's commit
///   wrote that the base reaches (references born at the base's version,
///   followed from its roots: every such page hangs under parents born at
///   that version too, FORMAT.md 2.1). The walk reads only those pages,
///   and only when such a header is met, once per commit.
///
/// A free entry naming a reachable page born before the base's version
/// that this commit does not replace is not seen here: `verify` finds it.
/// Never a refusal of what a writer produces: the ledger never lists a
/// page the version reaches.
final class ReuseCheck {
    let path: String
    /// The checkpoint record the commit builds on.
    let base: CommitRecord
    let map: Mapping
    let io: any FileIO
    /// The pages the base's own commit wrote that it reaches (R3), read
    /// when first needed.
    private var writtenByBase: Set<UInt64>?

    init(path: String, base: CommitRecord, map: Mapping, io: any FileIO) {
        self.path = path
        self.base = base
        self.map = map
        self.io = io
    }

    /// Refuses (`corrupt`, 65) when `page`, about to be written, is one the
    /// base version still uses by R1–R3. `retired`: the pages of the base
    /// this commit replaces so far. Pages at or past the base's logical end
    /// are fresh: nothing of the base lies there.
    func check(_ page: UInt64, retired: Set<UInt64>) throws(FirnError) {
        guard page >= 2, page < base.logicalPageCount else { return }
        if let role = rootRole(page, orRegion: true) {
            throw refusal(page, "it is the \(role) of version \(base.version)")
        }
        if retired.contains(page) {
            throw refusal(page, "version \(base.version) reaches it (this commit replaces it)")
        }
        if isWrittenByBase(page) {
            throw refusal(page, "version \(base.version) reaches it (its own commit wrote it, birth \(base.version))")
        }
    }

    /// R3: whether `page` is one the base's own commit wrote that the base
    /// reaches. Only a page whose header names it, with the base's version
    /// as its birth and a correct checksum, is looked up (the walk runs
    /// once, at the first such page).
    func isWrittenByBase(_ page: UInt64) -> Bool {
        guard page >= 2, page < base.logicalPageCount else { return false }
        // The caller's map covers the base's pages; a page it does not
        // cover is not looked at (file data: checked before use).
        let pageSize = UInt64(base.pageSize)
        let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
        guard !overflow, offset <= UInt64(map.length), UInt64(map.length) - offset >= pageSize else { return false }
        let view = PageView(base: map.base + Int(offset), pageSize: Int(base.pageSize), number: page)
        guard view.storedPageNumber == page, view.birth == base.version,
              view.computeChecksum() == view.storedChecksum else { return false }
        if writtenByBase == nil { writtenByBase = pagesWrittenByBase() }
        return writtenByBase?.contains(page) == true
    }

    /// R1: the base record's root (or, with `orRegion`, its log region)
    /// holding `page`, if any.
    func rootRole(_ page: UInt64, orRegion: Bool) -> String? {
        if !base.catalogRoot.isNone && base.catalogRoot.page == page { return "catalog root" }
        if !base.spaceRoot.isNone && base.spaceRoot.page == page { return "space root" }
        // `fieldDefect` guarantees start + count ≤ L: no overflow.
        if orRegion, base.hasLogRegion, page >= base.logRegionStart,
           page - base.logRegionStart < UInt64(base.logRegionPages) {
            return "commit log region (pages \(base.logRegionStart)..<\(base.logRegionStart + UInt64(base.logRegionPages)))"
        }
        return nil
    }

    /// The pages reached from the base's roots by references born at its
    /// version: the open-time walk (FORMAT.md 2.1) with the durable base
    /// one below the version. A page of that walk that does not check out
    /// ends it: the pages found so far are kept (a refusal needs a page
    /// found reachable; damage is for the reads and `verify` to report).
    private func pagesWrittenByBase() -> Set<UInt64> {
        var record = base
        record.storedDistance = 0
        record.unsealed = false
        var walk = NewestRecordCheck(io: io, record: record, keepingCheckedPages: true)
        do { try walk.run() } catch {}
        return walk.checkedPages?.pages ?? []
    }

    private func refusal(_ page: UInt64, _ why: String) -> FirnError {
        FirnError.corrupt(
            path: path, page: page, version: base.version,
            detail: "the space ledger gives page \(page) for reuse, but \(why): refusing to overwrite it")
    }
}
