/// The open-time check of the newest commit record (FORMAT.md 2.1): with one
/// sync per commit (or per group of commits), a power loss inside that sync
/// can leave the record on disk while some page it points at is lost, stale
/// or torn. The sealed record of version *N*, whose durable base is *D* = N −
/// distance, is accepted only if every page it reaches that was born in
/// (*D*, *N*] checks out against the reference pointing at it.
///
/// Copy-on-write guarantees that every page born after *D* hangs under
/// parents born after *D* (a changed child forces its parent to be
/// rewritten, and a parent is never older than its children), so the walk
/// only follows references born after *D*: it reads exactly the pages the
/// commits since *D* wrote and *N* still reaches — never more, whatever the
/// size of the file. Pages born earlier belong to *D*, which was made
/// durable by its own sync before the first commit after it began.
///
/// Pages are read with `pread` through the file's I/O layer (`PageReader`:
/// runs of pages in file order a window at a time), not through the
/// store's map: opening a bulk-loaded file walks all of it, and mapped
/// pages would count in the resident set (see `PageReader`). The file's
/// size is checked against the record first.
struct NewestRecordCheck {
    /// Why a page did not check out (the record is rejected).
    struct Failure: Error {
        let page: UInt64
        let reason: String
    }

    private enum Expect {
        /// A branch or leaf, at `level` when the parent tells it.
        case tree(level: Int?, catalog: Bool)
        case overflow
    }

    let io: any FileIO
    let record: CommitRecord
    let pageSize: Int
    /// Pages read so far.
    private(set) var pagesRead = 0
    /// The references whose pages checked out, by page, when kept.
    private(set) var checkedPages: ProvedPages? = nil

    init(io: any FileIO, record: CommitRecord, keepingCheckedPages: Bool = false) {
        if keepingCheckedPages { checkedPages = ProvedPages() }
        self.io = io
        self.record = record
        pageSize = Int(record.pageSize)
    }

    /// Walks every page born after the durable base that it reaches;
    /// throws the first one that does not check out.
    mutating func run() throws(Failure) {
        let fileSize: UInt64
        do { fileSize = try io.size() } catch { throw Failure(page: 0, reason: "cannot size the file: \(error)") }
        // The file's growth is part of the commit: if it did not reach the
        // disk, the record names pages that do not exist.
        let needed = record.logicalPageCount.multipliedReportingOverflow(by: UInt64(pageSize))
        guard !needed.overflow, needed.partialValue <= fileSize else {
            throw Failure(page: 0, reason: "the record counts \(record.logicalPageCount) pages but the file holds \(fileSize / UInt64(pageSize))")
        }
        var work: [(PageRef, Expect)] = []
        follow(record.catalogRoot, as: .tree(level: nil, catalog: true), into: &work)
        follow(record.spaceRoot, as: .tree(level: nil, catalog: false), into: &work)
        var seen = PageBitmap(pages: record.logicalPageCount)
        let reader = PageReader(io: io, pageSize: pageSize, pageLimit: record.logicalPageCount)
        // A large file is checked on two cores: once the walk has queued
        // enough references (a big tree's root's children), the half
        // queued first (last in walk order) goes to another thread.
        var side: SideThread<Half>? = nil
        var splits = record.logicalPageCount >= twoCoreMinimumPages
        do throws(Failure) {
            while let (ref, expect) = work.popLast() {
                try visit(ref, as: expect, seen: &seen, reader: reader, into: &work)
                if splits, work.count >= Self.splitQueue {
                    splits = false
                    let given = Array(work.prefix(work.count / 2))
                    var other = self
                    other.pagesRead = 0
                    other.checkedPages = checkedPages == nil ? nil : ProvedPages()
                    side = SideThread { [other] in other.walk(given) }
                    // Without a thread the whole queue stays here.
                    if side != nil { work.removeFirst(given.count) }
                }
            }
        } catch {
            _ = side?.join()
            throw error
        }
        guard let side else { return }
        let half = side.join()
        pagesRead += half.check.pagesRead
        // This thread's half comes first in walk order: its failure (none
        // here) would have been the first; then the other's.
        if let failure = half.failure { throw failure }
        if let page = seen.merge(half.seen).first { throw Failure(page: page, reason: "page reached twice") }
        if let proved = half.check.checkedPages { checkedPages?.formUnion(proved) }
    }

    /// Files of at least this many pages are checked on two cores.
    var twoCoreMinimumPages = TwoCoreWalk.minimumPages
    /// How many queued references make the walk split (a branch's children).
    static let splitQueue = 8

    /// What the other thread's half of the walk found.
    private struct Half {
        var check: NewestRecordCheck
        var seen: PageBitmap
        var failure: Failure?
    }

    /// Walks `given` and everything below it on its own (the other thread's half).
    private func walk(_ given: [(PageRef, Expect)]) -> Half {
        var check = self
        var work = given
        var seen = PageBitmap(pages: record.logicalPageCount)
        let reader = PageReader(io: io, pageSize: pageSize, pageLimit: record.logicalPageCount)
        do throws(Failure) {
            while let (ref, expect) = work.popLast() {
                try check.visit(ref, as: expect, seen: &seen, reader: reader, into: &work)
            }
        } catch {
            return Half(check: check, seen: seen, failure: error)
        }
        return Half(check: check, seen: seen, failure: nil)
    }

    /// Reads and checks one queued page, queueing what it references.
    private mutating func visit(
        _ ref: PageRef, as expect: Expect, seen: inout PageBitmap, reader: PageReader, into work: inout [(PageRef, Expect)]
    ) throws(Failure) {
        guard ref.page >= 2, ref.page < record.logicalPageCount else {
            throw Failure(page: ref.page, reason: "reference outside pages 2..<\(record.logicalPageCount)")
        }
        // Every page is reached at most once, so the walk ends even on a cyclic file.
        guard seen.mark(ref.page, .reachable) == .unseen else {
            throw Failure(page: ref.page, reason: "page reached twice")
        }
        pagesRead += 1
        let view: PageView
        do { view = try reader.view(ref.page) } catch {
            throw Failure(page: ref.page, reason: "unreadable: \(error.detail)")
        }
        defer { reader.release(to: 0) }
        try check(view, ref: ref, expect: expect, into: &work)
        checkedPages?.insert(ref)
    }

    /// One page against the reference that led to it; queues its children
    /// born after the durable base.
    private func check(_ view: PageView, ref: PageRef, expect: Expect, into work: inout [(PageRef, Expect)]) throws(Failure) {
        let page = ref.page
        guard view.storedPageNumber == page else {
            throw Failure(page: page, reason: "header names page \(view.storedPageNumber)")
        }
        guard view.birth == ref.birth else {
            throw Failure(page: page, reason: "birth \(view.birth), the reference says \(ref.birth)")
        }
        let computed = view.computeChecksum()
        guard computed == view.storedChecksum, computed == ref.checksum else {
            throw Failure(page: page, reason: "checksum \(String(computed, radix: 16)) (stored \(String(view.storedChecksum, radix: 16)), "
                + "the reference says \(String(ref.checksum, radix: 16)))")
        }
        // From here the page is what the writer wrote (its checksum is the
        // one its parent recorded). A page of the wrong kind is not what the
        // reference meant; anything else wrong inside it is a defect of the
        // writer for `verify` to report, not a lost write: the walk stops
        // there without rejecting the record.
        switch expect {
        case .overflow:
            guard view.typeByte == PageType.overflow.rawValue, view.level == 0 else {
                throw Failure(page: page, reason: "type \(view.typeByte) level \(view.level), expected an overflow page")
            }
            if let (_, next) = try? view.overflowPayload() { follow(next, as: .overflow, into: &work) }
        case let .tree(level, catalog):
            let isLeaf = view.typeByte == PageType.leaf.rawValue
            guard isLeaf || view.typeByte == PageType.branch.rawValue else {
                throw Failure(page: page, reason: "type \(view.typeByte), expected a branch or leaf page")
            }
            guard isLeaf == (view.level == 0), level.map({ $0 == view.level }) ?? true else {
                throw Failure(page: page, reason: "level \(view.level), expected \(level.map(String.init) ?? "a level matching the type")")
            }
            guard (try? view.checkTreePage(expectLeaf: isLeaf)) != nil else { return }
            // Its references are gathered first and followed only when the
            // whole page keeps the rules read here (FORMAT.md 2.1: below a
            // page that breaks one, the walk does not go — not even below
            // the cells before the broken one).
            var below: [(PageRef, Expect)] = []
            for index in 0..<view.count {
                let reference: (PageRef, Expect)
                if !isLeaf {
                    guard let child = try? view.branchChild(index) else { return }
                    reference = (child, .tree(level: view.level - 1, catalog: catalog))
                } else {
                    guard let cell = try? view.leafCell(index) else { return }
                    switch cell.value {
                    case let .overflow(head, _):
                        reference = (head, .overflow)
                    case let .inline(bytes) where catalog:
                        guard let entry = CatalogEntry.decode(bytes) else { return }
                        reference = (entry.root, .tree(level: nil, catalog: false))
                    case .inline:
                        continue
                    }
                }
                // A reference born after the page holding it breaks §4.
                guard reference.0.isNone || reference.0.birth <= view.birth else { return }
                below.append(reference)
            }
            // Taken from the end of `work`: queued last to first, the
            // children are read in the order they were written (a window
            // of the reader covers a run of them).
            for (reference, expect) in below.reversed() { follow(reference, as: expect, into: &work) }
        }
    }

    /// Queues `ref` when it was born in (durable base, version]: only those
    /// can have been written since the last sync. (A reference born after
    /// the version is a writer's defect for `verify`, as before.)
    private func follow(_ ref: PageRef, as expect: Expect, into work: inout [(PageRef, Expect)]) {
        if !ref.isNone && ref.birth > record.durableBase && ref.birth <= record.version { work.append((ref, expect)) }
    }
}
