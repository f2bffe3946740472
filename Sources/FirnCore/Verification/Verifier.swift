/// Proves a version is what its committing writer wrote: walks every page
/// it reaches from the commit slot, checking each reference's checksum and
/// birth against the page it points to, every page's type, self number and
/// checksum, the B+ tree invariants (key order within and across pages,
/// uniform depth, counts), overflow chains, and that reachable, free and
/// retired pages account for every page exactly once.
///
/// Memory is a bitmap of two bits per page plus one root-to-leaf path.
public struct Verifier {
    public struct Options: Sendable {
        /// Skip the checksum of every page (structure and references only).
        public var quick = false
        /// Stop after this many findings.
        public var maxErrors = 100
        public init() {}
    }

    private let snapshot: Snapshot
    private let slots: CommitSlots?
    private let options: Options
    private var bitmap: PageBitmap
    private var report: VerifyReport
    private var stopped = false
    private var source: PageSource { snapshot.source }

    public init(snapshot: Snapshot, slots: CommitSlots?, options: Options = Options()) {
        self.snapshot = snapshot
        self.slots = slots
        self.options = options
        let pages = snapshot.info.logicalPageCount
        bitmap = PageBitmap(pages: pages)
        report = VerifyReport(
            path: snapshot.store.path, version: snapshot.version, pageSize: snapshot.store.pageSize,
            quick: options.quick, slots: [], trees: [], reachablePages: 0, freePages: 0, retiredPages: 0,
            logicalPages: pages, bytesChecked: 0, findings: [], truncated: false)
    }

    /// Runs every check and returns the findings.
    public static func verify(_ snapshot: Snapshot, slots: CommitSlots?, options: Options = Options()) -> VerifyReport {
        var verifier = Verifier(snapshot: snapshot, slots: slots, options: options)
        return verifier.run()
    }

    public mutating func run() -> VerifyReport {
        checkSlots()
        let version = snapshot.version
        // The two slot pages are always in use.
        for page in 0..<min(2, bitmap.count) { _ = bitmap.mark(page, .reachable) }
        var catalogStats = VerifiedTree(name: "(catalog)", kind: .catalog, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
        visitTree(snapshot.info.catalogRoot, tree: "(catalog)", stats: &catalogStats) { key, value, this in
            this.checkCatalogEntry(name: key, value: value)
        }
        if let spaceRoot = snapshot.info.spaceRoot {
            var spaceStats = VerifiedTree(name: "(space)", kind: .space, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
            visitTree(spaceRoot, tree: "(space)", stats: &spaceStats) { key, value, this in
                this.checkSpaceEntry(key: key, value: value)
            }
            if !stopped { checkAccounting(version: version) }
        }
        report.reachablePages = countPages(.reachable)
        return report
    }

    // MARK: slots

    private mutating func checkSlots() {
        guard let slots else { return }
        let current = slots.current?.version
        for (index, slot) in slots.slots.enumerated() {
            switch slot {
            case let .success(record):
                report.slots.append(VerifiedSlot(
                    slot: index, valid: true, version: record.version, timestampNanoseconds: record.timestampNanoseconds,
                    current: record.version == current, problem: nil))

            case let .failure(defect):
                report.slots.append(VerifiedSlot(slot: index, valid: false, version: nil, timestampNanoseconds: nil,
                                                 current: false, problem: defect.description))
                // An empty slot is normal for a new file; a damaged one is worth reporting.
                if defect != .empty {
                    add(VerifyFinding(kind: "slot", page: UInt64(index), message: "commit slot \(index): \(defect)"))
                }
            }
        }
        if let defect = slots.relationDefect {
            add(VerifyFinding(kind: "slot", page: UInt64(defect.slot), message: "commit slots: \(defect)"))
        }
    }

    // MARK: trees

    /// Checks the page a reference points to; nil when it cannot be read further.
    private mutating func checkReference(_ ref: PageRef, tree: String, use: PageBitmap.Use = .reachable) -> PageView? {
        let version = snapshot.version
        guard ref.page >= 2, ref.page < report.logicalPages else {
            add(VerifyFinding(kind: "range", page: ref.page, tree: tree, version: version,
                              expected: "2..<\(report.logicalPages)", found: "\(ref.page)",
                              message: "reference points outside the version's pages"))
            return nil
        }
        let before = bitmap.mark(ref.page, use)
        if before != .unseen {
            add(VerifyFinding(kind: "doubleUse", page: ref.page, tree: tree, version: version,
                              message: "page reached twice (a cycle or a shared page)"))
            return nil
        }
        let view: PageView
        do { view = try source.view(ref.page) } catch {
            add(VerifyFinding(kind: "range", page: ref.page, tree: tree, version: version, message: "\(error)"))
            return nil
        }
        report.bytesChecked += UInt64(view.pageSize)
        if report.bytesChecked % Mapping.residencyBudget == 0 { source.map.dropResidentPages() }
        if view.storedPageNumber != ref.page {
            add(VerifyFinding(kind: "misdirected", page: ref.page, tree: tree, version: version,
                              expected: "page \(ref.page)", found: "page \(view.storedPageNumber)",
                              message: "the page holds another page's contents (misdirected write)"))
            return nil
        }
        if !options.quick {
            let computed = view.computeChecksum()
            if computed != view.storedChecksum {
                add(VerifyFinding(kind: "checksum", page: ref.page, tree: tree, version: version,
                                  expected: hex32(view.storedChecksum), found: hex32(computed),
                                  message: "page contents do not match their checksum"))
                return nil
            }
        }
        if view.birth != ref.birth || view.storedChecksum != ref.checksum {
            add(VerifyFinding(kind: "birth", page: ref.page, tree: tree, version: version,
                              expected: "birth \(ref.birth), crc \(hex32(ref.checksum))",
                              found: "birth \(view.birth), crc \(hex32(view.storedChecksum))",
                              message: "the page is not the one its parent references (lost or stale write)"))
            return nil
        }
        if view.birth > version {
            add(VerifyFinding(kind: "birth", page: ref.page, tree: tree, version: version,
                              expected: "birth <= \(version)", found: "\(view.birth)",
                              message: "page is newer than the version that references it"))
            return nil
        }
        return view
    }

    /// Visits a tree from `root`, calling `leaf` for each entry in key order.
    private mutating func visitTree(
        _ root: PageRef, tree: String, stats: inout VerifiedTree,
        leaf: (UnsafeRawBufferPointer, StoredValue, inout Verifier) -> Void
    ) {
        guard !root.isNone else { return }
        var previousKey: [UInt8]? = nil
        var leafDepth: Int? = nil
        visitPage(root, tree: tree, level: nil, lower: nil, upper: nil, depth: 1,
                  previousKey: &previousKey, leafDepth: &leafDepth, stats: &stats, leaf: leaf)
        stats.depth = leafDepth ?? 0
        // User trees are added by their catalog entry, with the count check.
        if stats.kind != .user { report.trees.append(stats) }
    }

    private mutating func visitPage(
        _ ref: PageRef, tree: String, level: Int?, lower: [UInt8]?, upper: [UInt8]?, depth: Int,
        previousKey: inout [UInt8]?, leafDepth: inout Int?, stats: inout VerifiedTree,
        leaf: (UnsafeRawBufferPointer, StoredValue, inout Verifier) -> Void
    ) {
        guard !stopped, let view = checkReference(ref, tree: tree) else { return }
        let version = snapshot.version
        do {
            try view.checkTreePage(expectLeaf: level.map { $0 == 0 })
        } catch {
            add(VerifyFinding(kind: "structure", page: ref.page, tree: tree, version: version, message: "\(error.detail)"))
            return
        }
        if let level, view.level != level {
            add(VerifyFinding(kind: "depth", page: ref.page, tree: tree, version: version,
                              expected: "level \(level)", found: "level \(view.level)",
                              message: "children must sit exactly one level below their parent"))
            return
        }
        let isLeaf = view.typeByte == PageType.leaf.rawValue
        if isLeaf != (view.level == 0) {
            add(VerifyFinding(kind: "structure", page: ref.page, tree: tree, version: version,
                              message: "\(isLeaf ? "leaf" : "branch") page at level \(view.level)"))
            return
        }
        do {
            if isLeaf {
                stats.leafPages += 1
                if let leafDepth, leafDepth != depth {
                    add(VerifyFinding(kind: "depth", page: ref.page, tree: tree, version: version,
                                      expected: "depth \(leafDepth)", found: "depth \(depth)", message: "leaves at different depths"))
                }
                leafDepth = depth
                for i in 0..<view.count {
                    let cell = try view.leafCell(i)
                    try checkKeyOrder(cell.key, previous: &previousKey, lower: lower, upper: upper,
                                      page: ref.page, tree: tree, index: i)
                    stats.entries += 1
                    if case let .overflow(head, length) = cell.value {
                        checkOverflow(head, length: length, tree: tree, stats: &stats)
                    }
                    leaf(cell.key, cell.value, &self)
                    if stopped { return }
                }
            } else {
                stats.branchPages += 1
                var keys: [[UInt8]] = []
                keys.reserveCapacity(view.count)
                for i in 0..<view.count { keys.append(i == 0 ? [] : Array(try view.branchKey(i))) }
                for i in 1..<max(1, keys.count) where compareBytes(keys[i - 1], keys[i]) >= 0 && i > 1 {
                    add(VerifyFinding(kind: "order", page: ref.page, tree: tree, version: version,
                                      message: "branch separators \(i - 1) and \(i) are not ascending"))
                }
                for i in 0..<view.count {
                    let child = try view.branchChild(i)
                    let childLower = i == 0 ? lower : keys[i]
                    let childUpper = i + 1 < keys.count ? keys[i + 1] : upper
                    visitPage(child, tree: tree, level: view.level - 1, lower: childLower, upper: childUpper,
                              depth: depth + 1, previousKey: &previousKey, leafDepth: &leafDepth, stats: &stats, leaf: leaf)
                    if stopped { return }
                }
            }
        } catch {
            add(VerifyFinding(kind: "structure", page: ref.page, tree: tree, version: version, message: "\(error.detail)"))
        }
    }

    private mutating func checkKeyOrder(
        _ key: UnsafeRawBufferPointer, previous: inout [UInt8]?, lower: [UInt8]?, upper: [UInt8]?,
        page: UInt64, tree: String, index: Int
    ) throws(FirnError) {
        let version = snapshot.version
        if let previous, compareBytes(previous, key) >= 0 {
            add(VerifyFinding(kind: "order", page: page, tree: tree, version: version,
                              message: "key \(index) is not greater than the key before it"))
        }
        if let lower, compareBytes(lower, key) > 0 {
            add(VerifyFinding(kind: "order", page: page, tree: tree, version: version,
                              message: "key \(index) is below its parent's separator for this page"))
        }
        if let upper, compareBytes(upper, key) <= 0 {
            add(VerifyFinding(kind: "order", page: page, tree: tree, version: version,
                              message: "key \(index) is at or above the next separator in the parent"))
        }
        previous = Array(key)
    }

    private mutating func checkOverflow(_ head: PageRef, length: UInt64, tree: String, stats: inout VerifiedTree) {
        var ref = head
        var total: UInt64 = 0
        while !ref.isNone, !stopped {
            guard let view = checkReference(ref, tree: tree) else { return }
            stats.overflowPages += 1
            do {
                let (payload, next) = try view.overflowPayload()
                total += UInt64(payload.count)
                if total > length {
                    add(VerifyFinding(kind: "overflow", page: ref.page, tree: tree, version: snapshot.version,
                                      expected: "\(length) bytes", found: "more", message: "overflow chain is longer than its value"))
                    return
                }
                ref = next
            } catch {
                add(VerifyFinding(kind: "overflow", page: ref.page, tree: tree, version: snapshot.version, message: "\(error.detail)"))
                return
            }
        }
        if total != length {
            add(VerifyFinding(kind: "overflow", page: head.page, tree: tree, version: snapshot.version,
                              expected: "\(length) bytes", found: "\(total) bytes",
                              message: "overflow chain length differs from the leaf's"))
        }
    }

    private mutating func checkCatalogEntry(name: UnsafeRawBufferPointer, value: StoredValue) {
        let treeName = String(decoding: name, as: UTF8.self)
        guard case let .inline(bytes) = value, let entry = CatalogEntry.decode(bytes) else {
            add(VerifyFinding(kind: "structure", tree: treeName, version: snapshot.version,
                              message: "catalog entry is not \(CatalogEntry.size) inline bytes"))
            return
        }
        var stats = VerifiedTree(name: treeName, kind: .user, entries: 0, depth: 0, branchPages: 0, leafPages: 0, overflowPages: 0)
        visitTree(entry.root, tree: treeName, stats: &stats) { _, _, _ in }
        if !stopped, stats.entries != entry.count {
            add(VerifyFinding(kind: "count", tree: treeName, version: snapshot.version,
                              expected: "\(entry.count) entries (catalog)", found: "\(stats.entries)",
                              message: "the catalog's entry count differs from the tree's"))
        }
        report.trees.append(stats)
    }

    // MARK: space

    private mutating func checkSpaceEntry(key: UnsafeRawBufferPointer, value: StoredValue) {
        let version = snapshot.version
        switch SpaceKey.decode(key) {
        case let .free(page)?:
            report.freePages += 1
            markSpace(page, .free, what: "free")
        case let .retired(death, birth, page)?:
            report.retiredPages += 1
            if !(birth < death && death <= version) {
                add(VerifyFinding(kind: "space", page: page, version: version,
                                  expected: "birth < death <= \(version)", found: "birth \(birth), death \(death)",
                                  message: "retired-page entry with an impossible lifetime"))
            }
            markSpace(page, .retired, what: "retired")
        case let .pinned(pinned)?:
            if pinned > version {
                add(VerifyFinding(kind: "space", version: version, expected: "<= \(version)", found: "\(pinned)",
                                  message: "recorded pin is newer than the version"))
            }
        case let .history(v)?:
            guard case let .inline(bytes) = value, let record = HistoryRecord.decode(bytes), record.version == v, v <= version else {
                add(VerifyFinding(kind: "history", version: version, message: "malformed history entry for version \(v)"))
                return
            }
        case nil:
            add(VerifyFinding(kind: "space", version: version, message: "space tree key of unknown shape (\(key.count) bytes)"))
        }
    }

    private mutating func markSpace(_ page: UInt64, _ use: PageBitmap.Use, what: String) {
        guard page >= 2, page < report.logicalPages else {
            add(VerifyFinding(kind: "space", page: page, version: snapshot.version,
                              expected: "2..<\(report.logicalPages)", found: "\(page)", message: "\(what) page out of range"))
            return
        }
        let before = bitmap.mark(page, use)
        if before != .unseen {
            add(VerifyFinding(kind: "doubleUse", page: page, version: snapshot.version,
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
            add(VerifyFinding(kind: "leak", page: leaked.first, version: version,
                              expected: "every page reachable, free or retired", found: "\(leakedCount) unaccounted",
                              message: "pages neither reachable nor free nor retired: \(leaked.map(String.init).joined(separator: ", "))\(leakedCount > 10 ? ", …" : "")"))
        }
        if let record = snapshot.info.commitRecord {
            if record.freePages != report.freePages {
                add(VerifyFinding(kind: "space", version: version, expected: "\(record.freePages) free pages (commit record)",
                                  found: "\(report.freePages)", message: "free-page count differs from the space tree"))
            }
            if record.retiredPages != report.retiredPages {
                add(VerifyFinding(kind: "space", version: version, expected: "\(record.retiredPages) retired pages (commit record)",
                                  found: "\(report.retiredPages)", message: "retired-page count differs from the space tree"))
            }
        }
    }

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
