/// Proves a version is what its committing writer wrote: walks every page
/// it reaches from the commit slot, checking each reference's checksum and
/// birth against the page it points to, every page's type, self number and
/// checksum, the B+ tree invariants (key order within and across pages,
/// uniform depth, counts), overflow chains, and that reachable, free and
/// retired pages account for every page exactly once. Every limit and
/// field rule docs/FORMAT.md states is a finding: key and inline limits,
/// tree names, reserved fields, overflow chain shape, space entries, the
/// history record of the version, and that the previous slot's version
/// stays intact.
///
/// Memory is a bitmap of two bits per page plus one root-to-leaf path (and
/// a second bitmap while the previous slot's version is checked). Pages are
/// read with `pread` into the path's frames (`PageReader`), not through the
/// store's map, so the file does not become resident in the process.
package struct Verifier {
    package struct Options: Sendable {
        /// Skip the checksum of every page (structure and references only).
        package var quick = false
        /// Stop after this many findings.
        package var maxErrors = 100
        /// A file of at least this many pages has each big tree walked on
        /// two cores (the halves of its root's children).
        package var twoCoreMinimumPages = TwoCoreWalk.minimumPages
        package init() {}
    }

    private let snapshot: Snapshot
    /// The pages the open-time check proved, when the store kept them.
    private let provedPages: ProvedPages?
    private let slots: CommitSlots?
    private let options: Options
    private var bitmap: PageBitmap
    private var report: VerifyReport
    private var stopped = false
    /// The byte ranges of one page's cells, reused from page to page: cells
    /// must not overlap (FORMAT.md §5), which the per-cell bounds checks of
    /// a read do not see (a key length running into the next cell).
    private var cellSpans: [Range<Int>] = []
    /// The bytes `cellSpans` cover, marked as they are checked.
    private var cellBytes: ByteRangeMap
    /// The space tree held a history record of the version verified.
    private var sawCurrentHistory = false
    /// The space tree's epoch entries by end, with the leaf that holds each
    /// and how many pages of its region the walk found retired as it says
    /// (its `P` entries come after it in key order): checked once it is done.
    private var epochEntries: [UInt64: (record: LogEpochRecord, page: UInt64, retired: UInt64)] = [:]
    /// Where the walks read pages: one frame per level of the path.
    private let reader: PageReader
    /// This verifier walks the other half of a tree for another (it does
    /// not split again).
    private var isSide = false
    /// Subtrees a `SubtreeChecker` walked clean as their image was written,
    /// by root: the walk takes one whole when its parent's reference, key
    /// bounds, depth and pages agree (`takePrechecked`).
    private var prechecked: [PageRef: PrecheckedSubtree] = [:]
    /// A subtree check's record of the pages it reached, and of its first key.
    private var visitLog: PageRuns? = nil
    private var firstKeyOfWalk: [UInt8]? = nil

    package init(snapshot: Snapshot, slots: CommitSlots?, options: Options = Options()) {
        provedPages = snapshot.store.openCheck.checkedPages
        self.snapshot = snapshot
        self.slots = slots
        self.options = options
        let pages = snapshot.info.logicalPageCount
        geometry = snapshot.store.geometry
        verifiedVersion = snapshot.info.version
        reader = PageReader(io: snapshot.store.io, pageSize: snapshot.store.pageSize, pageLimit: pages)
        bitmap = PageBitmap(pages: pages)
        cellBytes = ByteRangeMap(bytes: snapshot.store.geometry.pageSize)
        report = VerifyReport(
            path: snapshot.store.path, version: snapshot.version, pageSize: snapshot.store.pageSize,
            quick: options.quick, slots: [], trees: [], reachablePages: 0, freePages: 0, retiredPages: 0,
            logicalPages: pages, bytesChecked: 0, findings: [], truncated: false)
    }

    /// Told the number of pages read so far, every `progressInterval`
    /// pages (`firn verify`'s progress line).
    private var pagesRead: ((UInt64) -> Void)?
    static let progressInterval: UInt64 = 256

    /// Runs every check and returns the findings; `pagesRead` hears how
    /// many pages were read, now and then.
    package static func verify(_ snapshot: Snapshot, slots: CommitSlots?, options: Options = Options(),
                               prechecked: [PageRef: PrecheckedSubtree] = [:],
                               pagesRead: ((UInt64) -> Void)? = nil) -> VerifyReport {
        var verifier = Verifier(snapshot: snapshot, slots: slots, options: options)
        verifier.pagesRead = pagesRead
        verifier.prechecked = prechecked
        return verifier.run()
    }

    package mutating func run() -> VerifyReport {
        checkSlots()
        checkSlotPadding()
        let version = verifiedVersion
        // The two slot pages are always in use, and so is the commit log
        // region the checkpoint made (its frames are checked as the
        // snapshot reads them). The trees and the space tree checked are
        // the checkpoint's: a version between checkpoints has no pages of
        // its own.
        for page in 0..<min(2, bitmap.count) { _ = bitmap.mark(page, .reachable) }
        if let region = snapshot.info.commitRecord?.logRegion {
            for page in region.startPage..<region.startPage + region.pageCount {
                markSpace(page, .reachable, what: "a commit log region")
            }
        }
        checkLog()
        var catalogStats = VerifiedTree(name: "(catalog)", kind: .catalog, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
        visitTree(snapshot.info.catalogRoot, tree: "(catalog)", role: .catalog, holderBirth: nil,
                  stats: &catalogStats) { key, value, place, this in
            this.checkCatalogEntry(name: key, value: value, place: place)
        }
        if let spaceRoot = snapshot.info.spaceRoot {
            var spaceStats = VerifiedTree(name: "(space)", kind: .space, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
            visitTree(spaceRoot, tree: "(space)", role: .space, holderBirth: nil, stats: &spaceStats) { key, value, place, this in
                this.checkSpaceEntry(key: key, value: value, place: place)
            }
            if !stopped { checkEpochEntries() }
            if !stopped { checkAccounting(version: version) }
            if !stopped { checkPreviousVersion() }
        }
        report.reachablePages = countPages(.reachable)
        return report
    }

    // MARK: slots

    private mutating func checkSlots() {
        guard let slots else { return }
        // The version verified is current: on a live database with an open
        // group of deferred commits that is the published, unsealed record,
        // which the open-time check (run on these slots) would reject after
        // a power loss — pending, not rejected.
        let current = verifiedVersion
        for (index, slot) in slots.slots.enumerated() {
            switch slot {
            case let .success(record):
                // A rejected newest record is what a power loss during its
                // commit's sync leaves (FORMAT.md 2.1): a state, not a defect.
                let rejection = record.version == current
                    ? nil : slots.rejected.flatMap { $0.version == record.version ? $0.description : nil }
                report.slots.append(VerifiedSlot(
                    slot: index, valid: true, version: record.version, timestampNanoseconds: record.timestampNanoseconds,
                    current: record.version == current, problem: rejection, unsealed: record.unsealed))

            case let .failure(defect):
                report.slots.append(VerifiedSlot(slot: index, valid: false, version: nil, timestampNanoseconds: nil,
                                                 current: false, problem: defect.description))
                // An empty slot is normal for a new file; a damaged one is worth reporting.
                if defect != .empty {
                    add(VerifyFinding(.slot, page: UInt64(index), message: "commit slot \(index): \(defect)"))
                }
            }
        }
        if let defect = slots.relationDefect {
            add(VerifyFinding(.slot, page: UInt64(defect.slot), message: "commit slots: \(defect)"))
        }
    }

    // MARK: commit log

    /// The checkpoint's commit log (FORMAT.md 8.2), read afresh: every
    /// frame the scan accepts, each commit frame applied over the versions
    /// before it as readers apply it (a frame that cannot be applied is a
    /// finding naming its first page and version, wherever it is: a reader
    /// applies every frame it has read), the version verified among the
    /// frames, and each tree's count at the version against its entries.
    /// A torn, stale or damaged end after the frames is what a crash during
    /// a write leaves: a note.
    private mutating func checkLog() {
        guard let record = snapshot.info.commitRecord, record.hasLogRegion else { return }
        let log: LogInspection
        do {
            guard let read = try snapshot.store.inspectLog(of: record) else { return }
            log = read
        } catch {
            add(VerifyFinding(.log, page: record.logRegionStart, version: record.version,
                              message: "the commit log region cannot be read: \(error.detail)"))
            return
        }
        let version = snapshot.version
        var notes: [String] = []
        let endPlace = "region byte \(log.endOffset)" + (log.endPage.map { ", page \($0)" } ?? "")
        switch log.endKind {
        case .torn, .stale, .damaged:
            notes.append("the scan ends \(log.endKind.rawValue) at \(endPlace) after version \(log.newestVersion)"
                + (log.endDetail.map { " (\($0))" } ?? "")
                + ": what a write cut short by a crash leaves (or a frame being written now);"
                + " no frame may follow it: the next commit is a checkpoint")
        case .full:
            notes.append("the region is full: the next commit is a checkpoint")
        case .blank, .foreign, .otherEpoch:
            break
        }
        // (With a frame that cannot be applied, no reader takes any.)
        if log.newestVersion > version && log.unapplied == nil {
            notes.append("frames of versions \(version + 1)…\(log.newestVersion) follow version \(version):"
                + " commits published since, or frames no reader takes (an open group a first opener dropped,"
                + " a writer that died before publishing), after which the next commit is a checkpoint")
        }
        var summary = LogReport(log)
        summary.notes = notes
        report.log = summary
        if let bad = log.unapplied {
            add(VerifyFinding(.log, page: bad.page, version: bad.version,
                              message: "commit log frame checks out but cannot be applied: \(bad.detail)"))
        }
        if version > log.newestVersion {
            add(VerifyFinding(.log, page: log.endPage, version: version,
                              expected: "a commit frame of version \(version)",
                              found: "the log ends \(log.endKind.rawValue) at \(endPlace) after version \(log.newestVersion)",
                              message: "the version is not in its checkpoint's log"))
        }
        // Counts: a frame gives each tree it changes its count after the
        // version (payload op 6), which readers report without counting.
        guard let overlay = snapshot.log, log.unapplied.map({ $0.version > version }) ?? true else { return }
        for (name, state) in overlay.trees.sorted(by: { $0.key < $1.key }) where state.exists {
            let frame = log.lastFrame(changing: name, atOrBelow: version)
            var counted: UInt64 = 0
            do {
                guard let tree = try snapshot.tree(name) else { continue }
                let cursor = tree.cursor()
                try cursor.first()
                while cursor.isValid {
                    counted += 1
                    try cursor.next()
                }
            } catch {
                add(VerifyFinding(.log, page: frame?.page, tree: name, version: version,
                                  message: "the tree cannot be read through the log: \(error.detail)"))
                continue
            }
            if counted != state.count {
                add(VerifyFinding(.count, page: frame?.page, tree: name, version: frame?.version ?? version,
                                  expected: "\(counted) entries (the tree at version \(version))", found: "\(state.count)",
                                  message: "the commit log frame's entry count differs from the tree's"))
            }
        }
    }

    // MARK: slot pages

    /// The parts of the slot pages no record field covers: the rest of the
    /// page after the record is zero. (Offset 104, once reserved, is the
    /// durable base distance: `CommitRecord.decode` checks it.)
    private mutating func checkSlotPadding() {
        guard let slots else { return }
        let pageSize = geometry.pageSize
        var page = [UInt8](repeating: 0, count: pageSize)
        for (index, slot) in slots.slots.enumerated() {
            guard case let .success(record) = slot else { continue }
            let offset = UInt64(index) * UInt64(pageSize)
            let read = try? withMutableBytes(&page) { (b) throws(FirnError) in try snapshot.store.io.read(into: b, at: offset) }
            guard let read, read >= record.encodedSize else { continue }
            if let stray = page[record.encodedSize..<min(read, pageSize)].firstIndex(where: { $0 != 0 }) {
                add(VerifyFinding(.reserved, page: UInt64(index), version: record.version, expected: "zero after the record",
                                  found: "byte \(page[stray]) at offset \(stray)",
                                  message: "the slot page holds bytes past its commit record"))
            }
        }
    }

    // MARK: trees

    /// What a tree holds, which decides what its leaf values must be.
    private enum TreeRole {
        case catalog, space, named
    }

    /// Where a leaf entry lives: its page and that page's birth (the newest
    /// a page it references may be).
    private struct EntryPlace {
        let page: UInt64
        let birth: UInt64
    }

    /// The store's geometry and the version verified, read once: the walk
    /// asks for them for every key and cell, and each read through the
    /// snapshot and its store was two object loads (profiled).
    private let geometry: PageGeometry
    private let verifiedVersion: UInt64

    /// Checks the page a reference points to; nil when it cannot be read
    /// further. `holderBirth` is the birth of the page holding the reference
    /// (nil for the commit record's roots): children are never newer. The
    /// view is in a frame of `reader`: the caller releases it.
    private mutating func checkReference(
        _ ref: PageRef, tree: String, holderBirth: UInt64?, use: PageBitmap.Use = .reachable
    ) -> PageView? {
        let version = verifiedVersion
        guard ref.page >= 2, ref.page < report.logicalPages else {
            add(VerifyFinding(.range, page: ref.page, tree: tree, version: version,
                              expected: "2..<\(report.logicalPages)", found: "\(ref.page)",
                              message: "reference points outside the version's pages"))
            return nil
        }
        let before = bitmap.mark(ref.page, use)
        if before != .unseen {
            add(VerifyFinding(.doubleUse, page: ref.page, tree: tree, version: version,
                              message: "page reached twice (a cycle or a shared page)"))
            return nil
        }
        visitLog?.append(ref.page)
        let view: PageView
        do { view = try reader.view(ref.page) } catch {
            add(VerifyFinding(.range, page: ref.page, tree: tree, version: version, message: error.detail))
            return nil
        }
        report.bytesChecked += UInt64(view.pageSize)
        if let pagesRead, report.bytesChecked % (UInt64(view.pageSize) * Self.progressInterval) == 0 {
            pagesRead(report.bytesChecked / UInt64(view.pageSize))
        }
        if view.storedPageNumber != ref.page {
            add(VerifyFinding(.misdirected, page: ref.page, tree: tree, version: version,
                              expected: "page \(ref.page)", found: "page \(view.storedPageNumber)",
                              message: "the page holds another page's contents (misdirected write)"))
            return nil
        }
        // A page the open-time check proved against this very reference
        // (same page, birth and checksum: pages are never rewritten while a
        // version reaches them) has had its checksum computed already.
        let proved = provedPages?.proves(ref) == true
        if !options.quick && !proved {
            let computed = view.computeChecksum()
            if computed != view.storedChecksum {
                add(VerifyFinding(.checksum, page: ref.page, tree: tree, version: version,
                                  expected: hex32(view.storedChecksum), found: hex32(computed),
                                  message: "page contents do not match their checksum"))
                return nil
            }
        }
        if view.birth != ref.birth || view.storedChecksum != ref.checksum {
            add(VerifyFinding(.birth, page: ref.page, tree: tree, version: version,
                              expected: "birth \(ref.birth), crc \(hex32(ref.checksum))",
                              found: "birth \(view.birth), crc \(hex32(view.storedChecksum))",
                              message: "the page is not the one its parent references (lost or stale write)"))
            return nil
        }
        if view.birth > version || view.birth == 0 {
            add(VerifyFinding(.birth, page: ref.page, tree: tree, version: version,
                              expected: "birth 1...\(version)", found: "\(view.birth)",
                              message: view.birth == 0 ? "page birth 0 (versions start at 1)"
                                  : "page is newer than the version that references it"))
            return nil
        }
        if let holderBirth, view.birth > holderBirth {
            add(VerifyFinding(.birth, page: ref.page, tree: tree, version: version,
                              expected: "birth <= \(holderBirth) (the referencing page's)", found: "\(view.birth)",
                              message: "page is newer than the page that references it (children are written first)"))
        }
        if view.reservedHeaderField != 0 {
            add(VerifyFinding(.reserved, page: ref.page, tree: tree, version: version,
                              expected: "0", found: "\(view.reservedHeaderField)",
                              message: "page header field at offset 24 (reserved) is not zero"))
        }
        return view
    }

    /// Visits a tree from `root`, calling `leaf` for each entry in key order.
    private mutating func visitTree(
        _ root: PageRef, tree: String, role: TreeRole, holderBirth: UInt64?, stats: inout VerifiedTree,
        leaf: (UnsafeRawBufferPointer, StoredValue, EntryPlace, inout Verifier) -> Void
    ) {
        guard !root.isNone else {
            if root != .none {
                add(VerifyFinding(.reserved, tree: tree, version: verifiedVersion, expected: "page 0, birth 0, crc 0",
                                  found: "\(root.page), birth \(root.birth), crc \(hex32(root.checksum))",
                                  message: "a reference to no page must be all zero"))
            }
            return
        }
        var previousKey: [UInt8]? = nil
        var leafDepth: Int? = nil
        visitPage(root, tree: tree, role: role, holderBirth: holderBirth, level: nil, lower: nil, upper: nil, depth: 1,
                  previousKey: &previousKey, leafDepth: &leafDepth, stats: &stats, leaf: leaf)
        stats.depth = leafDepth ?? 0
        if role != .named { report.trees.append(stats) }
    }

    private mutating func visitPage(
        _ ref: PageRef, tree: String, role: TreeRole, holderBirth: UInt64?, level: Int?, lower: [UInt8]?,
        upper: [UInt8]?, depth: Int, previousKey: inout [UInt8]?, leafDepth: inout Int?, stats: inout VerifiedTree,
        leaf: (UnsafeRawBufferPointer, StoredValue, EntryPlace, inout Verifier) -> Void
    ) {
        if let level, !prechecked.isEmpty, let subtree = prechecked[ref], subtree.level == level, role == .named,
           takePrechecked(subtree, ref: ref, holderBirth: holderBirth, lower: lower, upper: upper, depth: depth,
                          previousKey: &previousKey, leafDepth: &leafDepth, stats: &stats) {
            return
        }
        // This page's frame, and those of the pages below it, are free again on return.
        let mark = reader.mark
        defer { reader.release(to: mark) }
        guard !stopped, let view = checkReference(ref, tree: tree, holderBirth: holderBirth) else { return }
        let version = verifiedVersion
        do {
            try view.checkTreePage(expectLeaf: level.map { $0 == 0 })
        } catch {
            add(VerifyFinding(.structure, page: ref.page, tree: tree, version: version, message: "\(error.detail)"))
            return
        }
        if let level, view.level != level {
            add(VerifyFinding(.depth, page: ref.page, tree: tree, version: version,
                              expected: "level \(level)", found: "level \(view.level)",
                              message: "children must sit exactly one level below their parent"))
            return
        }
        let isLeaf = view.typeByte == PageType.leaf.rawValue
        if isLeaf != (view.level == 0) {
            add(VerifyFinding(.structure, page: ref.page, tree: tree, version: version,
                              message: "\(isLeaf ? "leaf" : "branch") page at level \(view.level)"))
            return
        }
        if view.payloadField != 0 {
            add(VerifyFinding(.reserved, page: ref.page, tree: tree, version: version, expected: "0",
                              found: "\(view.payloadField)",
                              message: "page header field at offset 4 (overflow payload length) is not zero in a \(isLeaf ? "leaf" : "branch")"))
        }
        do {
            if isLeaf {
                stats.leafPages += 1
                if let leafDepth, leafDepth != depth {
                    add(VerifyFinding(.depth, page: ref.page, tree: tree, version: version,
                                      expected: "depth \(leafDepth)", found: "depth \(depth)", message: "leaves at different depths"))
                }
                leafDepth = depth
                if view.count == 0 {
                    add(VerifyFinding(.structure, page: ref.page, tree: tree, version: version,
                                      expected: "1 or more entries", found: "0",
                                      message: "empty leaf page (an empty tree has root page 0)"))
                }
                // A subtree check's first key: the first leaf's first (a
                // page whose key cannot be read has a finding, and no subtree).
                if previousKey == nil, visitLog != nil, firstKeyOfWalk == nil, view.count > 0 {
                    firstKeyOfWalk = (try? view.leafKey(0)).map { Array($0) }
                }
                if role == .named, view.count > 0,
                   quickCleanLeaf(view, lower: lower, upper: upper, previousKey: &previousKey, stats: &stats) {
                    return
                }
                // The key before a cell is the previous cell's, in this page
                // (compared where it lies); only a leaf's last key is copied,
                // for the next leaf's first (one copy per key was a visible cost).
                var previousInPage: UnsafeRawBufferPointer? = nil
                defer {
                    if let last = previousInPage {
                        if previousKey == nil { previousKey = [] }
                        previousKey?.removeAll(keepingCapacity: true)
                        previousKey?.append(contentsOf: last)
                    }
                }
                // Taken out while this page's cells are read: a catalog
                // leaf's entries walk their trees (`leaf`), which use it too.
                var spans = cellSpans
                cellSpans = []
                spans.removeAll(keepingCapacity: true)
                for i in 0..<view.count {
                    let cell = try view.leafCell(i)
                    let start = view.cellOffset(i)
                    let valueBytes: Int
                    switch cell.value {
                    case let .inline(bytes): valueBytes = bytes.count
                    case .overflow: valueBytes = LeafLayout.overflowValueSize
                    }
                    spans.append(start..<(start + LeafLayout.cellHeaderSize + cell.key.count + valueBytes))
                    checkKeyOrder(cell.key, previousInPage: previousInPage, previousLeaf: previousKey,
                                  lower: lower, upper: upper, page: ref.page, tree: tree, index: i)
                    previousInPage = cell.key
                    if role != .catalog { checkKeyLength(cell.key.count, what: "key \(i)", page: ref.page, tree: tree) }
                    try checkLeafCell(view, index: i, cell: cell, tree: tree)
                    stats.entries += 1
                    if case let .overflow(head, length) = cell.value {
                        checkOverflow(head, length: length, tree: tree, holderBirth: view.birth, stats: &stats)
                    }
                    leaf(cell.key, cell.value, EntryPlace(page: ref.page, birth: view.birth), &self)
                    if stopped { return }
                }
                cellSpans = spans
                checkCellsApart(page: ref.page, tree: tree)
            } else {
                stats.branchPages += 1
                var keys: [[UInt8]] = []
                keys.reserveCapacity(view.count)
                cellSpans.removeAll(keepingCapacity: true)
                for i in 0..<view.count {
                    let key = try view.branchKey(i)
                    let start = view.cellOffset(i)
                    cellSpans.append(start..<(start + BranchLayout.cellHeaderSize + key.count))
                    keys.append(Array(key))
                }
                checkCellsApart(page: ref.page, tree: tree)
                if let first = keys.first, !first.isEmpty {
                    add(VerifyFinding(.structure, page: ref.page, tree: tree, version: version,
                                      expected: "0 bytes", found: "\(first.count) bytes",
                                      message: "the first separator of a branch is stored empty (it is the parent's separator)"))
                    keys[0] = []
                }
                for i in 1..<max(1, keys.count) {
                    checkKeyLength(keys[i].count, what: "separator \(i)", page: ref.page, tree: tree)
                    if i > 1, compareBytes(keys[i - 1], keys[i]) >= 0 {
                        add(VerifyFinding(.order, page: ref.page, tree: tree, version: version,
                                          message: "branch separators \(i - 1) and \(i) are not ascending"))
                    }
                    if let lower, compareBytes(lower, keys[i]) >= 0 {
                        add(VerifyFinding(.order, page: ref.page, tree: tree, version: version,
                                          message: "separator \(i) is not above the page's lower bound (its parent's separator)"))
                    }
                    if let upper, compareBytes(keys[i], upper) >= 0 {
                        add(VerifyFinding(.order, page: ref.page, tree: tree, version: version,
                                          message: "separator \(i) is not below the next separator in the parent"))
                    }
                }
                if let split = twoCoreSplit(view, keys: keys, upper: upper, tree: tree, role: role, depth: depth) {
                    for i in 0..<split.mid {
                        visitPage(split.children[i], tree: tree, role: role, holderBirth: view.birth, level: view.level - 1,
                                  lower: i == 0 ? lower : keys[i], upper: keys[i + 1], depth: depth + 1,
                                  previousKey: &previousKey, leafDepth: &leafDepth, stats: &stats, leaf: leaf)
                        if stopped { break }
                    }
                    mergeSide(split.thread.join(), page: ref.page, tree: tree, previousKey: &previousKey,
                              leafDepth: &leafDepth, stats: &stats)
                    return
                }
                for i in 0..<view.count {
                    let child = try view.branchChild(i)
                    let childLower = i == 0 ? lower : keys[i]
                    let childUpper = i + 1 < keys.count ? keys[i + 1] : upper
                    visitPage(child, tree: tree, role: role, holderBirth: view.birth, level: view.level - 1,
                              lower: childLower, upper: childUpper, depth: depth + 1, previousKey: &previousKey,
                              leafDepth: &leafDepth, stats: &stats, leaf: leaf)
                    if stopped { return }
                }
            }
        } catch {
            add(VerifyFinding(.structure, page: ref.page, tree: tree, version: version, message: "\(error.detail)"))
        }
    }

    // MARK: subtrees checked ahead

    /// A verifier for the subtrees of `snapshot`'s packed image, read
    /// through `io` while the image is being written (`SubtreeChecker`):
    /// the image has the snapshot's page size and version. Nothing is read
    /// through the snapshot itself, and it never splits a walk.
    /// `inPlace` gives a page's bytes where they lie, when it can.
    package init(subtreesOf snapshot: Snapshot, reading io: any FileIO, inPlace: ((UInt64) -> UnsafeRawPointer?)? = nil) {
        self.snapshot = snapshot
        provedPages = nil
        slots = nil
        options = Options()
        geometry = snapshot.store.geometry
        verifiedVersion = snapshot.info.version
        reader = PageReader(io: io, pageSize: geometry.pageSize, pageLimit: 0)
        reader.inPlace = inPlace
        bitmap = PageBitmap(pages: 0)
        cellBytes = ByteRangeMap(bytes: geometry.pageSize)
        report = VerifyReport(
            path: io.path, version: snapshot.version, pageSize: geometry.pageSize, quick: false, slots: [], trees: [],
            reachablePages: 0, freePages: 0, retiredPages: 0, logicalPages: 0, bytesChecked: 0, findings: [],
            truncated: false)
        isSide = true
    }

    /// Walks the subtree under `ref` (a page at `level` of named tree
    /// `tree`) with every check a walk from the root makes inside it, with
    /// no key bounds and no parent; `pages` of the image are written or
    /// handed over. The subtree when it is clean, nil on any finding (the
    /// walk from the root then reads it again and reports it in place).
    package mutating func precheck(_ ref: PageRef, level: Int, tree: String, pages: UInt64) -> PrecheckedSubtree? {
        report.findings = []
        report.truncated = false
        stopped = false
        report.logicalPages = pages
        reader.pageLimit = pages
        bitmap.grow(toPages: pages)
        visitLog = PageRuns()
        firstKeyOfWalk = nil
        defer {
            visitLog = nil
            firstKeyOfWalk = nil
        }
        let bytesBefore = report.bytesChecked
        var previousKey: [UInt8]? = nil
        var leafDepth: Int? = nil
        var stats = VerifiedTree(name: tree, kind: .user, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
        visitPage(ref, tree: tree, role: .named, holderBirth: nil, level: level, lower: nil, upper: nil, depth: 1,
                  previousKey: &previousKey, leafDepth: &leafDepth, stats: &stats) { _, _, _, _ in }
        guard report.findings.isEmpty, let first = firstKeyOfWalk, let last = previousKey, let leafDepth,
              let pagesReached = visitLog else { return nil }
        return PrecheckedSubtree(level: level, firstKey: first, lastKey: last, leafDepth: leafDepth, counts: stats,
                                 pages: pagesReached, bytesChecked: report.bytesChecked - bytesBefore)
    }

    /// Takes a subtree checked ahead in place of walking it, when what the
    /// walk from the root checks across it holds: its root is in range, no
    /// newer than the version and its parent, its keys within the parent's
    /// bounds and after the key before, its leaves at the tree's depth, and
    /// none of its pages reached already. False: walk it (and report it).
    private mutating func takePrechecked(
        _ subtree: PrecheckedSubtree, ref: PageRef, holderBirth: UInt64?, lower: [UInt8]?, upper: [UInt8]?, depth: Int,
        previousKey: inout [UInt8]?, leafDepth: inout Int?, stats: inout VerifiedTree
    ) -> Bool {
        let logical = report.logicalPages
        let treeDepth = subtree.leafDepth + depth - 1
        guard !stopped, ref.page >= 2, ref.page < logical, ref.birth != 0, ref.birth <= verifiedVersion,
              holderBirth.map({ ref.birth <= $0 }) ?? true,
              compareBytes(subtree.firstKey, subtree.lastKey) <= 0,
              lower.map({ compareBytes($0, subtree.firstKey) <= 0 }) ?? true,
              upper.map({ compareBytes(subtree.lastKey, $0) < 0 }) ?? true,
              previousKey.map({ compareBytes($0, subtree.firstKey) < 0 }) ?? true,
              leafDepth.map({ $0 == treeDepth }) ?? true,
              subtree.pages.allSatisfy({ $0 < logical && bitmap[$0] == .unseen }) else { return false }
        subtree.pages.forEach { _ = bitmap.mark($0, .reachable) }
        stats.addCounts(of: subtree.counts)
        report.bytesChecked += subtree.bytesChecked
        previousKey = subtree.lastKey
        leafDepth = treeDepth
        return true
    }

    // MARK: two cores

    /// A child of the branch split between the threads, with its bounds.
    private struct SideChild {
        let ref: PageRef
        let lower: [UInt8]
        let upper: [UInt8]?
    }

    /// What the other thread's half of a tree found.
    private struct SideWalk {
        var verifier: Verifier
        var stats: VerifiedTree
        var leafDepth: Int?
        var previousKey: [UInt8]?
    }

    /// The root of a big named tree, in a big file: its children from the
    /// middle on go to another thread (started here), the first half stays.
    /// Nil when the walk stays on this thread — also when a child reference
    /// cannot be read, which the one-thread walk then reports in order.
    /// Named trees only: their leaves need nothing of the walk's shared
    /// state (the catalog's walk the trees it names, the space tree's feeds
    /// the page accounting).
    private func twoCoreSplit(
        _ view: PageView, keys: [[UInt8]], upper: [UInt8]?, tree: String, role: TreeRole, depth: Int
    ) -> (mid: Int, children: [PageRef], thread: SideThread<SideWalk>)? {
        guard !isSide, role == .named, depth == 1, view.count >= 2, keys.count == view.count,
              report.logicalPages >= options.twoCoreMinimumPages,
              let children = try? (0..<view.count).map({ (i) throws(FirnError) in try view.branchChild(i) }) else { return nil }
        let mid = view.count / 2
        let given = (mid..<view.count).map { i in
            SideChild(ref: children[i], lower: keys[i], upper: i + 1 < keys.count ? keys[i + 1] : upper)
        }
        let side = Verifier(sideOf: self)
        let birth = view.birth, level = view.level - 1
        guard let thread = SideThread({ [side] in
            side.walkSide(given, tree: tree, role: role, holderBirth: birth, level: level, depth: depth + 1)
        }) else { return nil }
        return (mid, children, thread)
    }

    /// A verifier for the other half of a tree: what it checks against is
    /// this one's, what it finds and marks is its own until `mergeSide`.
    private init(sideOf main: Verifier) {
        snapshot = main.snapshot
        provedPages = main.provedPages
        slots = nil
        options = main.options
        geometry = main.geometry
        verifiedVersion = main.verifiedVersion
        reader = PageReader(io: main.snapshot.store.io, pageSize: main.geometry.pageSize, pageLimit: main.report.logicalPages)
        bitmap = PageBitmap(pages: main.report.logicalPages)
        cellBytes = ByteRangeMap(bytes: main.geometry.pageSize)
        prechecked = main.prechecked
        var report = main.report
        report.findings = []
        report.trees = []
        report.slots = []
        report.bytesChecked = 0
        report.truncated = false
        self.report = report
        isSide = true
    }

    /// The other thread's walk of `children` (its own verifier, a copy).
    private func walkSide(_ children: [SideChild], tree: String, role: TreeRole, holderBirth: UInt64, level: Int,
                          depth: Int) -> SideWalk {
        var side = self
        var previousKey: [UInt8]? = nil
        var leafDepth: Int? = nil
        var stats = VerifiedTree(name: tree, kind: .user, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
        for child in children {
            side.visitPage(child.ref, tree: tree, role: role, holderBirth: holderBirth, level: level, lower: child.lower,
                           upper: child.upper, depth: depth, previousKey: &previousKey, leafDepth: &leafDepth,
                           stats: &stats) { _, _, _, _ in }
            if side.stopped { break }
        }
        return SideWalk(verifier: side, stats: stats, leafDepth: leafDepth, previousKey: previousKey)
    }

    /// Takes in the other half's findings (after this half's, as one
    /// thread would have found them), counts and pages. A page both halves
    /// reached was reached twice. The halves' key order needs nothing
    /// more: each child was checked against its separators.
    private mutating func mergeSide(_ side: SideWalk, page: UInt64, tree: String, previousKey: inout [UInt8]?,
                                    leafDepth: inout Int?, stats: inout VerifiedTree) {
        report.bytesChecked += side.verifier.report.bytesChecked
        for finding in side.verifier.report.findings { add(finding) }
        for shared in bitmap.merge(side.verifier.bitmap) {
            add(VerifyFinding(.doubleUse, page: shared, tree: tree, version: verifiedVersion,
                              message: "page reached twice (a cycle or a shared page)"))
        }
        stats.addCounts(of: side.stats)
        if let depth = side.leafDepth {
            if let mine = leafDepth, mine != depth {
                add(VerifyFinding(.depth, page: page, tree: tree, version: verifiedVersion, expected: "depth \(mine)",
                                  found: "depth \(depth)", message: "leaves at different depths"))
            }
            if leafDepth == nil { leafDepth = depth }
        }
        if let key = side.previousKey { previousKey = key }
    }

    /// A named tree's leaf whose cells are all inline, checked in one pass
    /// that reads each cell once: true when every check of the cell-by-cell
    /// loop holds (no finding), the page then counted and its last key kept;
    /// false leaves the page to that loop, which reports what it finds. Most
    /// of `verify`'s time, and of a compaction's check of its copy, is leaves.
    private mutating func quickCleanLeaf(
        _ view: PageView, lower: [UInt8]?, upper: [UInt8]?, previousKey: inout [UInt8]?, stats: inout VerifiedTree
    ) -> Bool {
        let count = view.count
        let maxKey = geometry.maxKeyLength
        var first = UnsafeRawBufferPointer(start: nil, count: 0)
        var last = first
        // The cells' byte ranges each after, or each before, the one before:
        // apart (`ByteRangeMap.firstOverlap`'s quick case; any other layout
        // goes to the loop).
        var ascending = true, descending = true
        var lastStart = 0, lastEnd = 0
        for i in 0..<count {
            // Inline with flags and reserved byte zero, inside the page, a
            // value that belongs inline, and a key within the limit.
            guard let (offset, keyLength, end) = view.plainLeafCell(i, geometry: geometry), keyLength <= maxKey else {
                return false
            }
            let key = UnsafeRawBufferPointer(start: view.base + offset + LeafLayout.cellHeaderSize, count: keyLength)
            if i == 0 {
                first = key
            } else {
                guard compareBytes(last, key) < 0 else { return false }
                if offset < lastEnd { ascending = false }
                if end > lastStart { descending = false }
                guard ascending || descending else { return false }
            }
            last = key
            lastStart = offset
            lastEnd = end
        }
        // Keys ascend in the page: the bounds hold for all when they hold
        // for the first and the last.
        if let previousKey, compareBytes(previousKey, first) >= 0 { return false }
        if let lower, compareBytes(lower, first) > 0 { return false }
        if let upper, compareBytes(upper, last) <= 0 { return false }
        stats.entries += UInt64(count)
        if previousKey == nil { previousKey = [] }
        previousKey?.removeAll(keepingCapacity: true)
        previousKey?.append(contentsOf: last)
        return true
    }

    /// `previousInPage` is the key of the cell before in the same leaf (nil
    /// for the first), `previousLeaf` the last key of the leaf before.
    private mutating func checkKeyOrder(
        _ key: UnsafeRawBufferPointer, previousInPage: UnsafeRawBufferPointer?, previousLeaf: [UInt8]?,
        lower: [UInt8]?, upper: [UInt8]?, page: UInt64, tree: String, index: Int
    ) {
        let version = verifiedVersion
        let ordered: Bool
        if let previousInPage {
            ordered = compareBytes(previousInPage, key) < 0
        } else if let previousLeaf {
            ordered = compareBytes(previousLeaf, key) < 0
        } else {
            ordered = true
        }
        if !ordered {
            add(VerifyFinding(.order, page: page, tree: tree, version: version,
                              message: "key \(index) is not greater than the key before it"))
        }
        if let lower, compareBytes(lower, key) > 0 {
            add(VerifyFinding(.order, page: page, tree: tree, version: version,
                              message: "key \(index) is below its parent's separator for this page"))
        }
        if let upper, compareBytes(upper, key) <= 0 {
            add(VerifyFinding(.order, page: page, tree: tree, version: version,
                              message: "key \(index) is at or above the next separator in the parent"))
        }
    }

    /// Keys and separators are at most a quarter page (FORMAT.md 5.4).
    /// `what` is built only for a finding: this runs for every key of the file.
    private mutating func checkKeyLength(_ length: Int, what: @autoclosure () -> String, page: UInt64, tree: String) {
        guard length > geometry.maxKeyLength else { return }
        add(VerifyFinding(.limit, page: page, tree: tree, version: verifiedVersion,
                          expected: "at most \(geometry.maxKeyLength) bytes (the key limit)", found: "\(length) bytes",
                          message: "\(what()) is longer than the key limit"))
    }

    /// One finding when two of the page's cells (`cellSpans`) share a byte.
    private mutating func checkCellsApart(page: UInt64, tree: String) {
        guard cellSpans.count > 1, let span = cellBytes.firstOverlap(in: cellSpans) else { return }
        add(VerifyFinding(.structure, page: page, tree: tree, version: verifiedVersion,
                          expected: "cells apart", found: "bytes \(span) shared with an earlier cell",
                          message: "two cells of the page overlap (a key or value length runs into the next cell)"))
    }

    /// A leaf cell's flags and reserved fields, and where its value lives:
    /// inline exactly when it fits the inline limit (FORMAT.md 5.1, 5.4).
    private mutating func checkLeafCell(_ view: PageView, index: Int, cell: LeafCell, tree: String) throws(FirnError) {
        let version = verifiedVersion
        let fields = try view.leafCellFields(index)
        if fields.flags & ~LeafLayout.overflowFlag != 0 {
            add(VerifyFinding(.reserved, page: view.number, tree: tree, version: version, expected: "flags 0 or 1",
                              found: "flags \(fields.flags)", message: "leaf cell \(index) sets an undefined flag bit"))
        }
        if fields.reserved != 0 {
            add(VerifyFinding(.reserved, page: view.number, tree: tree, version: version, expected: "0",
                              found: "\(fields.reserved)", message: "leaf cell \(index) reserved byte is not zero"))
        }
        // Built only for a finding: this runs for every cell of the file.
        var limit: String { "2 + 8 + key + value <= \(geometry.maxCellFootprint) bytes" }
        switch cell.value {
        case let .inline(bytes):
            if !geometry.isInline(keyLength: cell.key.count, valueLength: bytes.count) {
                add(VerifyFinding(.limit, page: view.number, tree: tree, version: version,
                                  expected: "inline only when \(limit)",
                                  found: "\(cell.key.count)-byte key, \(bytes.count)-byte value",
                                  message: "leaf cell \(index) holds inline a value that breaks the inline limit"))
            }
        case let .overflow(_, length):
            if fields.inlineLength != 0 {
                add(VerifyFinding(.reserved, page: view.number, tree: tree, version: version, expected: "0",
                                  found: "\(fields.inlineLength)",
                                  message: "leaf cell \(index) in an overflow chain has a non-zero inline value length"))
            }
            if length <= UInt64(geometry.maxCellFootprint),
               geometry.isInline(keyLength: cell.key.count, valueLength: Int(length)) {
                add(VerifyFinding(.limit, page: view.number, tree: tree, version: version,
                                  expected: "an overflow chain only when \(limit) fails",
                                  found: "\(cell.key.count)-byte key, \(length)-byte value",
                                  message: "leaf cell \(index) keeps in an overflow chain a value that fits inline"))
            }
        }
    }

    /// An overflow chain: ceil(length / capacity) pages, each full but the
    /// last, which carries the rest and whose next reference is all zero.
    private mutating func checkOverflow(_ head: PageRef, length: UInt64, tree: String, holderBirth: UInt64,
                                        stats: inout VerifiedTree) {
        let version = verifiedVersion
        let capacity = UInt64(geometry.overflowPayloadCapacity)
        let pages = length == 0 ? 1 : (length - 1) / capacity + 1
        if pages > report.logicalPages {
            add(VerifyFinding(.overflow, page: head.page, tree: tree, version: version,
                              expected: "at most \(report.logicalPages) pages", found: "\(pages) pages for \(length) bytes",
                              message: "overflow value is longer than the version's pages can hold"))
            return
        }
        var ref = head
        var holder = holderBirth
        var total: UInt64 = 0
        var index: UInt64 = 0
        while !ref.isNone, !stopped {
            let mark = reader.mark
            defer { reader.release(to: mark) }
            guard let view = checkReference(ref, tree: tree, holderBirth: holder) else { return }
            stats.overflowPages += 1
            do {
                let (payload, next) = try view.overflowPayload()
                if view.level != 0 || view.count != 0 {
                    add(VerifyFinding(.structure, page: ref.page, tree: tree, version: version,
                                      expected: "level 0, count 0", found: "level \(view.level), count \(view.count)",
                                      message: "overflow page header"))
                }
                guard index < pages else {
                    add(VerifyFinding(.overflow, page: ref.page, tree: tree, version: version,
                                      expected: "\(pages) pages (ceil(\(length) / \(capacity)))", found: "more",
                                      message: "overflow chain headed by page \(head.page) is longer than its value needs"))
                    return
                }
                let expected = index + 1 < pages ? capacity : length - (pages - 1) * capacity
                if UInt64(payload.count) != expected {
                    add(VerifyFinding(.overflow, page: ref.page, tree: tree, version: version,
                                      expected: "\(expected) payload bytes (page \(index + 1) of \(pages))",
                                      found: "\(payload.count)",
                                      message: "overflow chain headed by page \(head.page): payload length"))
                    return
                }
                total += expected
                if index + 1 == pages, next != .none {
                    add(VerifyFinding(.overflow, page: ref.page, tree: tree, version: version,
                                      expected: "next reference all zero (the last page)", found: "\(next)",
                                      message: "overflow chain headed by page \(head.page) goes on past its value's last page"))
                    return
                }
                holder = view.birth
                ref = next
                index += 1
            } catch {
                add(VerifyFinding(.overflow, page: ref.page, tree: tree, version: version, message: "\(error.detail)"))
                return
            }
        }
        if total != length, !stopped {
            add(VerifyFinding(.overflow, page: head.page, tree: tree, version: version,
                              expected: "\(length) bytes", found: "\(total) bytes",
                              message: "overflow chain length differs from the leaf's"))
        }
    }

    private mutating func checkCatalogEntry(name: UnsafeRawBufferPointer, value: StoredValue, place: EntryPlace) {
        let version = verifiedVersion
        let treeName: String
        switch CatalogEntry.name(name, geometry: geometry) {
        case let .success(text):
            treeName = text
        case let .failure(defect):
            treeName = CatalogEntry.describe(name)
            add(VerifyFinding(.name, page: place.page, tree: treeName, version: version,
                              expected: "1 to \(geometry.maxKeyLength) bytes of UTF-8", found: "\(name.count) bytes",
                              message: "catalog key \(treeName): \(defect)"))
        }
        guard case let .inline(bytes) = value, let entry = CatalogEntry.decode(bytes), let base = bytes.baseAddress else {
            add(VerifyFinding(.structure, page: place.page, tree: treeName, version: version,
                              message: "catalog entry is not \(CatalogEntry.size) inline bytes"))
            return
        }
        let reserved = base.le(UInt32.self, at: 28)
        if reserved != 0 {
            add(VerifyFinding(.reserved, page: place.page, tree: treeName, version: version, expected: "0",
                              found: "\(reserved)", message: "catalog entry field at offset 28 (reserved) is not zero"))
        }
        var stats = VerifiedTree(name: treeName, kind: .user, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
        visitTree(entry.root, tree: treeName, role: .named, holderBirth: place.birth, stats: &stats) { _, _, _, _ in }
        if !stopped, stats.entries != entry.count {
            add(VerifyFinding(.count, tree: treeName, version: version,
                              expected: "\(entry.count) entries (catalog)", found: "\(stats.entries)",
                              message: "the catalog's entry count differs from the tree's"))
        }
        report.trees.append(stats)
    }

    // MARK: space

    private mutating func checkSpaceEntry(key: UnsafeRawBufferPointer, value: StoredValue, place: EntryPlace) {
        let version = verifiedVersion
        let decoded = SpaceKey.decode(key)
        switch decoded {
        case .free?, .retired?, .pinned?:
            if case let .inline(bytes) = value, bytes.isEmpty { break }
            add(VerifyFinding(.space, page: place.page, tree: "(space)", version: version, expected: "an empty value",
                              found: "\(Self.describe(value))", message: "free, retired and pin entries have empty values"))
        case .history?, .epoch?, nil:
            break
        }
        switch decoded {
        case let .free(page)?:
            report.freePages += 1
            markSpace(page, .free, what: "free")
        case let .retired(death, birth, page)?:
            report.retiredPages += 1
            if let epoch = epochEntries[death], birth == epoch.record.epoch, epoch.record.regionPageRange.contains(page) {
                epochEntries[death]?.retired += 1
            }
            if !(birth >= 1 && birth < death && death <= version) {
                add(VerifyFinding(.space, page: page, version: version,
                                  expected: "1 <= birth < death <= \(version)", found: "birth \(birth), death \(death)",
                                  message: "retired-page entry with an impossible lifetime"))
            }
            markSpace(page, .retired, what: "retired")
        case let .pinned(pinned)?:
            if pinned == 0 || pinned >= version {
                add(VerifyFinding(.space, version: version, expected: "1..<\(version)", found: "\(pinned)",
                                  message: "recorded pin is not an earlier version"))
            }
        case let .history(v)?:
            guard case let .inline(bytes) = value, let record = HistoryRecord.decode(bytes), record.version == v,
                  v >= 1, v <= version else {
                add(VerifyFinding(.history, page: place.page, version: version,
                                  expected: "an \(HistoryRecord.size)-byte record of a version in 1...\(version)",
                                  message: "malformed history entry for version \(v)"))
                return
            }
            checkHistory(record, page: place.page)
        case let .epoch(end)?:
            let validated = LogEpochRecord.validated(value, end: end)
            if case .failure(.shape) = validated {
                add(VerifyFinding(.space, page: place.page, tree: "(space)", version: version,
                                  expected: "a \(LogEpochRecord.size)-byte epoch record", found: Self.describe(value),
                                  message: "malformed epoch entry E(\(end))"))
            } else if end > version {
                add(VerifyFinding(.space, page: place.page, tree: "(space)", version: version,
                                  expected: "a checkpoint at or before \(version)", found: "\(end)",
                                  message: "epoch entry E(\(end)) names a later checkpoint"))
            } else if case let .failure(.field(field, expected)) = validated {
                add(VerifyFinding(.space, page: place.page, tree: "(space)", version: version,
                                  expected: expected, found: nil, message: "epoch entry E(\(end)): invalid \(field)"))
            } else if case let .success(entry) = validated {
                epochEntries[end] = (entry, place.page, 0)
            }
        case nil:
            add(VerifyFinding(.space, version: version, message: "space tree key of unknown shape (\(key.count) bytes)"))
        }
    }

    /// Each epoch entry finds a retired region: every page of it is
    /// retired by the entry's checkpoint, born at its epoch (FORMAT.md 7),
    /// as the walk counted. A region freed or reused while the entry stays
    /// would be read as frames by the next tool that reads a pinned version
    /// through it.
    private mutating func checkEpochEntries() {
        let version = verifiedVersion
        for (end, epoch) in epochEntries.sorted(by: { $0.key < $1.key })
        where epoch.retired < UInt64(epoch.record.regionPages) {
            let region = epoch.record.regionPageRange
            add(VerifyFinding(.space, page: epoch.page, tree: "(space)", version: version,
                              expected: "P(\(end), \(epoch.record.epoch), page) for each of pages \(region.lowerBound)..<\(region.upperBound)",
                              found: "\(epoch.retired) of the \(region.count) pages",
                              message: "epoch entry E(\(end)) names a log region whose pages are not retired by checkpoint \(end)"))
        }
    }

    private static func describe(_ value: StoredValue) -> String {
        switch value {
        case let .inline(bytes): "\(bytes.count) inline bytes"
        case let .overflow(_, length): "an overflow chain of \(length) bytes"
        }
    }

    /// A history record: a page count of at least the two slots and a
    /// catalog root inside it (or none); the current version's record
    /// repeats its commit record (FORMAT.md 7).
    private mutating func checkHistory(_ record: HistoryRecord, page: UInt64) {
        let version = verifiedVersion
        func finding(_ field: String, expected: String, found: String) {
            add(VerifyFinding(.history, page: page, tree: "(space)", version: version, expected: expected, found: found,
                              message: "history record of version \(record.version): \(field)"))
        }
        if record.logicalPageCount < 2 {
            finding("logical page count", expected: ">= 2", found: "\(record.logicalPageCount)")
        }
        let root = record.catalogRoot
        if !root.isNone, root.page < 2 || root.page >= record.logicalPageCount {
            finding("catalog root", expected: "page 0 or 2..<\(record.logicalPageCount)", found: "page \(root.page)")
        }
        guard record.version == version, let commit = snapshot.info.commitRecord else { return }
        sawCurrentHistory = true
        if record.timestampNanoseconds != commit.timestampNanoseconds {
            finding("commit time", expected: "\(commit.timestampNanoseconds) (commit record)", found: "\(record.timestampNanoseconds)")
        }
        if record.logicalPageCount != commit.logicalPageCount {
            finding("logical page count", expected: "\(commit.logicalPageCount) (commit record)", found: "\(record.logicalPageCount)")
        }
        if record.catalogRoot != commit.catalogRoot {
            finding("catalog root", expected: "\(commit.catalogRoot) (commit record)", found: "\(record.catalogRoot)")
        }
        // Byte counts follow from the record's page counts; a record whose
        // counts do not add up is reported against the slot, not here.
        let pageSize = UInt64(geometry.pageSize)
        let used = commit.freePages.addingReportingOverflow(commit.retiredPages)
        guard !used.overflow, used.partialValue <= commit.logicalPageCount else { return }
        let logicalBytes = commit.logicalPageCount.multipliedReportingOverflow(by: pageSize)
        let liveBytes = (commit.logicalPageCount - used.partialValue).multipliedReportingOverflow(by: pageSize)
        let freeBytes = commit.freePages.multipliedReportingOverflow(by: pageSize)
        let retiredBytes = commit.retiredPages.multipliedReportingOverflow(by: pageSize)
        guard !logicalBytes.overflow, !liveBytes.overflow, !freeBytes.overflow, !retiredBytes.overflow else { return }
        if record.liveBytes != liveBytes.partialValue {
            finding("live bytes", expected: "\(liveBytes.partialValue) ((pages - free - retired) x page size)",
                    found: "\(record.liveBytes)")
        }
        if record.fileBytes < logicalBytes.partialValue {
            finding("file size", expected: ">= \(logicalBytes.partialValue) (logical pages x page size)", found: "\(record.fileBytes)")
        } else {
            let tail = record.fileBytes - logicalBytes.partialValue
            let free = freeBytes.partialValue.addingReportingOverflow(tail)
            if free.overflow || record.freeBytes != free.partialValue {
                finding("free bytes", expected: "free pages x page size + file bytes past the last page",
                        found: "\(record.freeBytes)")
            }
        }
        if record.heldByPinsBytes > retiredBytes.partialValue {
            finding("bytes held for pins", expected: "<= \(retiredBytes.partialValue) (retired pages x page size)",
                    found: "\(record.heldByPinsBytes)")
        }
    }

    private mutating func markSpace(_ page: UInt64, _ use: PageBitmap.Use, what: String) {
        guard page >= 2, page < report.logicalPages else {
            add(VerifyFinding(.space, page: page, version: verifiedVersion,
                              expected: "2..<\(report.logicalPages)", found: "\(page)", message: "\(what) page out of range"))
            return
        }
        let before = bitmap.mark(page, use)
        if before != .unseen {
            add(VerifyFinding(.doubleUse, page: page, version: verifiedVersion,
                              message: "page is both \(describe(before)) and \(what)"))
        }
    }

    private func describe(_ use: PageBitmap.Use) -> String {
        switch use {
        case .reachable: "reachable"
        case .free: "free"
        case .retired: "retired"
        case .unseen: "unseen"
        }
    }

    private mutating func checkAccounting(version: UInt64) {
        var leaked: [UInt64] = []
        var leakedCount: UInt64 = 0
        for page in 2..<max(2, report.logicalPages) where bitmap[page] == .unseen {
            leakedCount += 1
            if leaked.count < 10 { leaked.append(page) }
        }
        if leakedCount > 0 {
            add(VerifyFinding(.leak, page: leaked.first, version: version,
                              expected: "every page reachable, free or retired", found: "\(leakedCount) unaccounted",
                              message: "pages neither reachable nor free nor retired: \(leaked.map(String.init).joined(separator: ", "))\(leakedCount > 10 ? ", …" : "")"))
        }
        if let record = snapshot.info.commitRecord {
            if record.freePages != report.freePages {
                add(VerifyFinding(.space, version: version, expected: "\(record.freePages) free pages (commit record)",
                                  found: "\(report.freePages)", message: "free-page count differs from the space tree"))
            }
            if record.retiredPages != report.retiredPages {
                add(VerifyFinding(.space, version: version, expected: "\(record.retiredPages) retired pages (commit record)",
                                  found: "\(report.retiredPages)", message: "retired-page count differs from the space tree"))
            }
            if !record.spaceRoot.isNone, !sawCurrentHistory {
                add(VerifyFinding(.history, page: record.spaceRoot.page, tree: "(space)", version: version,
                                  expected: "a C (history) entry for version \(version)", found: "none",
                                  message: "the space tree has no history record of the current version"))
            }
        }
    }

    // MARK: the previous slot's version

    /// Both slots describe intact versions (FORMAT.md 7, 8): every page the
    /// previous slot's version (the current one's durable base: current − 1,
    /// or the version a group of deferred commits built on) sees is, in the current
    /// version, either the same page (shared, its whole subtree with it) or
    /// retired; never free or rewritten. Walks only the pages the current
    /// version replaced, so the work follows the last commit's size. The
    /// previous version is not pinned: the findings stand only if the slots
    /// still hold the two versions after the walk (a writer that moved on
    /// may reuse its pages, legitimately).
    private mutating func checkPreviousVersion() {
        guard let slots, let record = snapshot.info.commitRecord, slots.current == record,
              let previous = slots.previous, previous.version < record.version,
              previous.version == record.durableBase else { return }
        var seen = PageBitmap(pages: report.logicalPages)
        var found: [VerifyFinding] = []
        var work: [(PageRef, TreeRole)] = [(previous.catalogRoot, .catalog), (previous.spaceRoot, .space)]
        while let (ref, role) = work.popLast(), found.count < options.maxErrors {
            guard !ref.isNone else { continue }
            let fail = { (message: String) in
                found.append(VerifyFinding(.previousVersion, page: ref.page, version: record.version,
                                           expected: "reachable unchanged or retired", found: nil,
                                           message: "page seen by the previous slot's version \(previous.version) \(message)"))
            }
            guard ref.page >= 2, ref.page < report.logicalPages else {
                fail("lies outside the current version's pages 2..<\(report.logicalPages)")
                continue
            }
            let mark = reader.mark
            defer { reader.release(to: mark) }
            guard let view = try? reader.view(ref.page) else { continue }
            let intact = view.storedPageNumber == ref.page && view.birth == ref.birth && view.storedChecksum == ref.checksum
            switch bitmap[ref.page] {
            case .unseen:
                continue  // already reported as unaccounted for
            case .free:
                fail("is free in the current version")
                continue
            case .reachable:
                if !intact { fail("was rewritten by the current version (birth \(view.birth), expected \(ref.birth))") }
                continue  // shared with the current version, whose walk checked it
            case .retired:
                guard seen.mark(ref.page, .reachable) == .unseen else { continue }
                guard intact, options.quick || view.computeChecksum() == ref.checksum else {
                    fail("is retired but no longer holds what that version wrote")
                    continue
                }
            }
            switch view.typeByte {
            case PageType.overflow.rawValue:
                if let (_, next) = try? view.overflowPayload() { work.append((next, role)) }
            case PageType.branch.rawValue:
                guard (try? view.checkTreePage(expectLeaf: false)) != nil else { continue }
                for i in 0..<view.count { if let child = try? view.branchChild(i) { work.append((child, role)) } }
            case PageType.leaf.rawValue:
                guard role != .space, (try? view.checkTreePage(expectLeaf: true)) != nil else { continue }
                for i in 0..<view.count {
                    guard let cell = try? view.leafCell(i) else { continue }
                    switch (role, cell.value) {
                    case let (.catalog, .inline(bytes)):
                        if let entry = CatalogEntry.decode(bytes) { work.append((entry.root, .named)) }
                    case let (.named, .overflow(head, _)):
                        work.append((head, .named))
                    default:
                        break
                    }
                }
            default:
                continue
            }
        }
        guard !found.isEmpty, let now = try? snapshot.store.readSlots(), now.current == record,
              now.previous == previous else { return }
        for finding in found { add(finding) }
    }

    // MARK: findings

    private func countPages(_ use: PageBitmap.Use) -> UInt64 {
        var n: UInt64 = 0
        for page in 0..<bitmap.count where bitmap[page] == use { n += 1 }
        return n
    }

    private mutating func add(_ finding: VerifyFinding) {
        guard !stopped else { return }
        report.findings.append(finding)
        if report.findings.count >= options.maxErrors {
            stopped = true
            report.truncated = true
        }
    }
}

extension FirnError {
    /// The message without the file and page prefix (the finding carries those).
    var detail: String {
        if case let .corrupt(_, _, _, detail) = self { return detail }
        return description
    }
}

