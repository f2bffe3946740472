import CFirnShims

/// Writes one readable version as a fresh, compact database image: every
/// tree bulk-loaded in key order into full pages, children before parents
/// (so each parent records its children's checksums), no free or retired
/// pages. Memory holds one page per tree level, plus one overflow value at a
/// time. Compaction and export are built on it.
///
/// The commit record at the front of the image needs every root's checksum,
/// which is known only at the end. `write` therefore fills a file and writes
/// the two slot pages last; `stream` makes a first pass that only computes
/// (the layout is deterministic), then emits the image strictly in order to
/// a sink that cannot seek (a compressor, a pipe). `streamSlotsLast` makes
/// one pass for a sink that can put the slot pages in front afterwards
/// (export to a file).
package struct PackedImageWriter {
    /// What was written.
    package struct Summary: Sendable, Codable, Equatable {
        package var version: UInt64
        package var pages: UInt64
        package var bytes: UInt64
        package var trees: Int
        package var entries: UInt64
        /// Leaves copied whole (`NodePage.adoptAppendedLeaf`) rather than
        /// cell by cell.
        package var wholeLeaves: UInt64 = 0
        /// The image's commit record.
        package var record: CommitRecord
    }

    private let snapshot: Snapshot
    private let sink: Sink
    private let pageSize: Int
    private let version: UInt64
    private var nextPage: UInt64 = 2
    private var entries: UInt64 = 0
    private var wholeLeaves: UInt64 = 0
    private let progress: ((UInt64) -> Void)?
    private let scratch: UnsafeMutableRawBufferPointer
    /// Pages emitted but not yet given to the sink: they go out 1 MiB at a
    /// time. Filled in a leased buffer of the output when it lends them
    /// (`leases`), which is then handed over without a copy.
    private var batch: UnsafeMutableRawBufferPointer
    private let ownBatch: UnsafeMutableRawBufferPointer
    private var batchPages = 0
    private let leases: LeasingOutput?
    private var lease: OutputLease? = nil
    /// The second pass of `stream`: the first computed the checksum of
    /// every page it read, and any page that differs now changes the
    /// image's record, which `stream` compares; this pass checks each
    /// page's header against its reference but does not recompute.
    private var sourceProved = false
    /// A tree is being read through the map (a log merge's checkpoint
    /// tree): its touched pages are dropped as the image grows. The
    /// checked walk reads with pread and maps nothing.
    private var readsThroughMap = false
    /// Told of each level-1 page of a named tree sealed, and of the pages
    /// handed to the sink (a `SubtreeChecker` checking the image as it goes).
    private let observer: PackedImageObserver?
    /// The named tree being loaded (nil for the catalog and space trees,
    /// whose entries the verifier's walk checks as it reads them).
    private var currentTree: String? = nil
    /// Where the current tree's next level-1 subtree starts.
    private var subtreeStart: UInt64 = 0

    /// Writes `snapshot`'s version to `out` (an empty file); the image ends up
    /// exactly `pages × pageSize` bytes. `out` is not synced.
    /// `observer` hears of each named tree's level-1 subtree as it is sealed.
    package static func write(
        _ snapshot: Snapshot, to out: any FileIO, observer: PackedImageObserver? = nil, progress: ((UInt64) -> Void)? = nil
    ) throws(FirnError) -> Summary {
        let pageSize = UInt64(snapshot.store.pageSize)
        let sink = Sink { (page, number) throws(FirnError) in try out.write(page, at: number * pageSize) }
        // A write-behind output's buffers are filled in place.
        return try run(snapshot, sink: sink, slotsFirst: nil, observer: observer, leases: out as? LeasingOutput,
                       progress: progress)
    }

    /// Emits the image's pages in file order (0, 1, 2, …) to `emit`. Makes
    /// two passes over the version: the first computes the commit record.
    /// `planned` learns the image (its size, its commit record) between the passes.
    package static func stream(
        _ snapshot: Snapshot, progress: ((UInt64) -> Void)? = nil,
        planned: (Summary) throws(FirnError) -> Void = { _ in },
        into emit: @escaping (UnsafeRawBufferPointer) throws(FirnError) -> Void
    ) throws(FirnError) -> Summary {
        let discard = Sink { (_, _) throws(FirnError) in }
        let plan = try run(snapshot, sink: discard, slotsFirst: nil, progress: nil)
        try planned(plan)
        let sink = Sink { (page, _) throws(FirnError) in try emit(page) }
        let summary = try run(snapshot, sink: sink, slotsFirst: plan.record, progress: progress)
        guard summary.record == plan.record else {
            // The version is pinned: its pages changed under the pin
            // (damage, or a writer outside the rules) after the first pass proved them.
            throw FirnError.corrupt(path: snapshot.store.path, page: nil, version: snapshot.version,
                                    detail: "the packed image changed between its two passes: a page of the pinned version changed")
        }
        return summary
    }

    /// Emits the image in one pass: pages 2, 3, … in file order, then the
    /// slot pages 0 and 1 (each call gets bytes of consecutive pages and the
    /// number of the first). Each page read is checked as in `write`.
    /// With `leasing`, pages 2… are packed into its buffers instead and
    /// handed over there (`emit` then gets the slot pages only).
    package static func streamSlotsLast(
        _ snapshot: Snapshot, leasing: LeasingOutput? = nil, progress: ((UInt64) -> Void)? = nil,
        into emit: @escaping (UnsafeRawBufferPointer, _ firstPage: UInt64) throws(FirnError) -> Void
    ) throws(FirnError) -> Summary {
        try run(snapshot, sink: Sink(emit), slotsFirst: nil, leases: leasing, progress: progress)
    }

    private static func run(
        _ snapshot: Snapshot, sink: Sink, slotsFirst: CommitRecord?, observer: PackedImageObserver? = nil,
        leases: LeasingOutput? = nil, progress: ((UInt64) -> Void)?
    ) throws(FirnError) -> Summary {
        // Lent buffers must hold whole pages.
        let pageSize = snapshot.store.pageSize
        let leases = leases.flatMap { $0.leaseBytes >= pageSize && $0.leaseBytes % pageSize == 0 ? $0 : nil }
        var writer = PackedImageWriter(snapshot: snapshot, sink: sink, observer: observer, leases: leases, progress: progress)
        defer {
            if let lease = writer.lease { leases?.giveBack(lease) }
            writer.scratch.deallocate()
            writer.ownBatch.deallocate()
        }
        do {
            if let record = slotsFirst {
                writer.sourceProved = true
                try writer.emitSlots(record)
            }
            return try writer.run(slotsLast: slotsFirst == nil)
        } catch {
            throw error.located(in: snapshot.store.path, version: snapshot.version)
        }
    }

    /// Where pages go: (bytes of one or more consecutive pages, number of the first).
    struct Sink {
        let put: (UnsafeRawBufferPointer, UInt64) throws(FirnError) -> Void
        init(_ put: @escaping (UnsafeRawBufferPointer, UInt64) throws(FirnError) -> Void) { self.put = put }
    }

    private init(snapshot: Snapshot, sink: Sink, observer: PackedImageObserver?, leases: LeasingOutput?,
                 progress: ((UInt64) -> Void)?) {
        self.snapshot = snapshot
        self.sink = sink
        self.observer = observer
        self.leases = leases
        self.progress = progress
        pageSize = snapshot.store.pageSize
        version = snapshot.version
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: pageSize, alignment: 4096)
        ownBatch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(pageSize, 1 << 20), alignment: 4096)
        batch = ownBatch
    }

    private mutating func run(slotsLast: Bool) throws(FirnError) -> Summary {
        let catalog = try snapshot.catalog()
        var roots: [(name: [UInt8], entry: CatalogEntry)] = []
        // Checkpoint trees are read with pread into frames, not through the
        // map (`PageReader`): a copy of a large file stays small in memory.
        let reader = PageReader(io: snapshot.store.io, pageSize: pageSize, pageLimit: snapshot.info.logicalPageCount)
        for (name, entry) in catalog {
            let before = entries
            let root: PageRef
            currentTree = name
            subtreeStart = nextPage
            defer { currentTree = nil }
            do throws(FirnError) {
                // A version between checkpoints: the log's entries over the
                // checkpoint's tree, which a map cursor reads (the merge seeks in it).
                if snapshot.log != nil, let log = try snapshot.tree(name)?.log {
                    let cursor = TreeCursor(source: snapshot.source, rootRef: entry.root)
                    var merged = LogMergeCursor(base: cursor, entries: log.entries, showsBase: log.showsBase)
                    readsThroughMap = true
                    defer { readsThroughMap = false }
                    root = try bulkLoad(&merged)
                } else {
                    var walk = CheckedTreeWalk(reader: reader, root: entry.root, version: snapshot.version,
                                               computesChecksums: !sourceProved)
                    root = try bulkLoad(&walk)
                }
                // The copy's catalog states the count it copied: one the
                // source's catalog disagrees with is refused, not carried.
                guard entries - before == entry.count else {
                    throw FirnError.corrupt(
                        path: "", page: entry.root.isNone ? nil : entry.root.page, version: nil,
                        detail: "the catalog counts \(entry.count) entries, the tree holds \(entries - before)")
                }
            } catch {
                throw error.inTree(name)
            }
            roots.append((Array(name.utf8), CatalogEntry(root: root, count: entry.count)))
        }
        // The catalog itself, from the new roots.
        var catalogLoader = TreeLoader(pageSize: pageSize)
        for (name, entry) in roots {
            let value = entry.encoded()
            try withBytes(name) { (key) throws(FirnError) in
                try withBytes(value) { (v) throws(FirnError) in
                    try catalogLoader.add(key: key, value: .inline(v), writer: &self)
                }
            }
        }
        let catalogRoot = try catalogLoader.finish(writer: &self)
        // The space tree keeps only the history (a packed file has no free or
        // retired pages), none when the source has none (a new file, or a
        // version read from the history). The version's own record describes
        // this image, page count included; the tree's layout does not depend
        // on the records' contents, so a dry run counts its pages first.
        // The image carries only the space tree's history, but every page
        // of the version is read and checked: a damaged free-list leaf
        // fails the copy (65) like any other page, instead of a copy that
        // verifies clean while its source does not. (The space tree is
        // small; `stream`'s two passes each walk it.)
        if let spaceRoot = snapshot.info.spaceRoot {
            var visited = Set<UInt64>()
            try snapshot.walkPages(root: spaceRoot, tree: "(space)", visited: &visited) { (_) throws(FirnError) in }
        }
        let sourceHistory = try snapshot.history()
        let history = sourceHistory.filter { $0.version < version }
        let keys = sourceHistory.isEmpty ? [] : history.map(\.version) + [version]
        var counter = PageCounter(pageNumberForNextEmit: nextPage, birth: version)
        var dryRun = TreeLoader(pageSize: pageSize)
        let placeholder = HistoryRecord(
            version: 0, timestampNanoseconds: 0, fileBytes: 0, liveBytes: 0, freeBytes: 0, heldByPinsBytes: 0,
            pagesWritten: 0, logicalPageCount: 0, catalogRoot: .none).encoded()
        for v in keys { try Self.addHistory(key: v, value: placeholder, to: &dryRun, writer: &counter) }
        _ = try dryRun.finish(writer: &counter)
        let pages = counter.pageNumberForNextEmit
        let bytes = pages * UInt64(pageSize)
        let current = HistoryRecord(
            version: version, timestampNanoseconds: snapshot.info.timestampNanoseconds, fileBytes: bytes,
            liveBytes: bytes, freeBytes: 0, heldByPinsBytes: 0, pagesWritten: pages - 2, logicalPageCount: pages,
            catalogRoot: catalogRoot)
        var spaceLoader = TreeLoader(pageSize: pageSize)
        for var record in history {
            // Older versions' pages do not exist in the new file.
            record.catalogRoot = .none
            try Self.addHistory(key: record.version, value: record.encoded(), to: &spaceLoader, writer: &self)
        }
        if !keys.isEmpty {
            try Self.addHistory(key: version, value: current.encoded(), to: &spaceLoader, writer: &self)
        }
        let spaceRoot = try spaceLoader.finish(writer: &self)
        guard nextPage == pages else {
            throw FirnError.misuse("\(snapshot.store.path): packed space tree took \(nextPage) pages, planned \(pages)")
        }
        let record = CommitRecord(
            pageSize: UInt32(pageSize), version: version, timestampNanoseconds: snapshot.info.timestampNanoseconds,
            logicalPageCount: nextPage, catalogRoot: catalogRoot, spaceRoot: spaceRoot,
            bytesWritten: nextPage * UInt64(pageSize), freePages: 0, retiredPages: 0)
        try flush()
        if slotsLast { try emitSlots(record) }
        return Summary(
            version: version, pages: nextPage, bytes: nextPage * UInt64(pageSize), trees: roots.count,
            entries: entries, wholeLeaves: wholeLeaves, record: record)
    }

    private static func addHistory<W: PageEmitter>(
        key version: UInt64, value: [UInt8], to loader: inout TreeLoader, writer: inout W
    ) throws(FirnError) {
        try withBytes(SpaceKey.historyEntry(version)) { (k) throws(FirnError) in
            try withBytes(value) { (v) throws(FirnError) in try loader.add(key: k, value: .inline(v), writer: &writer) }
        }
    }

    /// Pages 0 and 1: the record in slot `version % 2`, the other slot empty.
    private func emitSlots(_ record: CommitRecord) throws(FirnError) {
        let encoded = record.encoded()
        for slot in UInt64(0)...1 {
            scratch.initializeMemory(as: UInt8.self, repeating: 0)
            if slot == version % 2 {
                for (i, b) in encoded.enumerated() { scratch[i] = b }
            }
            try sink.put(UnsafeRawBufferPointer(scratch), slot)
        }
    }

    /// Copies one tree in key order; returns its new root.
    private mutating func bulkLoad<Walk: EntryWalk>(_ cursor: inout Walk) throws(FirnError) -> PageRef {
        var loader = TreeLoader(pageSize: pageSize)
        let geometry = PageGeometry(pageSize: pageSize)
        try cursor.first()
        while cursor.isValid {
            // A leaf laid out as the loader would lay it out goes over whole
            // (the same bytes, one copy); any other goes cell by cell.
            if let page = cursor.leafAtStart {
                try loader.flushLeafIfFull(before: page, geometry: geometry, writer: &self)
                if loader.leafIsEmpty, loader.adoptAppendedLeaf(page, geometry: geometry) {
                    entries += UInt64(page.count)
                    wholeLeaves += 1
                    try cursor.skipLeaf()
                    continue
                }
            }
            guard let stored = try cursor.storedValue() else { break }
            let value: StoredValue
            switch stored {
            case let .inline(bytes):
                // A log frame carries a value of any length: one too long
                // for a leaf goes to an overflow chain, as a commit puts it.
                let keyLength = try cursor.withKey { $0.count } ?? 0
                if geometry.isInline(keyLength: keyLength, valueLength: bytes.count) {
                    value = stored
                } else {
                    value = .overflow(try writeOverflow(bytes), length: UInt64(bytes.count))
                }
            case let .overflow(head, length):
                let bytes = try cursor.readOverflow(head, length: length)
                value = .overflow(try withBytes(bytes) { (b) throws(FirnError) in try writeOverflow(b) }, length: length)
            }
            // The key points into the map or the walk's frame, both valid until the cursor moves.
            let key = try cursor.withKey { $0 } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            try loader.add(key: key, value: value, writer: &self)
            entries += 1
            try cursor.next()
        }
        return try loader.finish(writer: &self)
    }

    /// Writes a value as an overflow chain numbered tail first, so pages go
    /// out in order and each reference knows the checksum of the next page.
    private mutating func writeOverflow(_ bytes: UnsafeRawBufferPointer) throws(FirnError) -> PageRef {
        let count = OverflowLayout.pageCount(length: bytes.count, pageSize: pageSize)
        let first = nextPage
        let pages = (0..<count).map { first + UInt64(count - 1 - $0) }
        return try OverflowLayout.writeChain(bytes, pages: pages, birth: version, scratch: scratch) {
            (_, image) throws(FirnError) in try emit(image)
        }
    }

    /// Appends the next page of the image.
    mutating func emit(_ page: UnsafeRawBufferPointer) throws(FirnError) {
        if (batchPages + 1) * pageSize > batch.count { try flush() }
        if batchPages == 0, lease == nil, let leases {
            let next = try leases.lease()
            lease = next
            batch = next.bytes
        }
        let slot = UnsafeMutableRawBufferPointer(rebasing: batch[(batchPages * pageSize)..<((batchPages + 1) * pageSize)])
        if lease != nil, let to = slot.baseAddress, let from = page.baseAddress {
            // An output's buffer, read next by another thread or the device.
            firn_copy_streaming(to, from, pageSize)
        } else {
            slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: page[0..<pageSize]))
        }
        batchPages += 1
        nextPage += 1
        if readsThroughMap, (nextPage * UInt64(pageSize)) % Mapping.residencyBudget == 0 {
            snapshot.source.map.dropResidentPages()
        }
        progress?(nextPage)
    }

    /// Gives the batched pages, which end just before `nextPage`, to the
    /// sink, or hands over the lent buffer they fill.
    private mutating func flush() throws(FirnError) {
        guard batchPages > 0 else { return }
        let first = nextPage - UInt64(batchPages)
        let count = batchPages * pageSize
        batchPages = 0
        if let lease, let leases {
            // Handed over even when it throws: the output owns it again.
            self.lease = nil
            batch = ownBatch
            try leases.submit(lease, count: count, at: first * UInt64(pageSize))
        } else {
            try sink.put(UnsafeRawBufferPointer(rebasing: batch[0..<count]), first)
        }
        observer?.handedOver(before: nextPage)
    }

    /// A level-1 page of a named tree is a whole subtree: its pages lie
    /// from `subtreeStart` to it.
    mutating func sealed(_ ref: PageRef, level: Int) {
        guard level == 1, let tree = currentTree, let observer else { return }
        observer.sealedSubtree(tree: tree, root: ref, level: level, firstPage: subtreeStart)
        subtreeStart = ref.page + 1
    }

    var pageNumberForNextEmit: UInt64 { nextPage }
    var birth: UInt64 { version }
}

extension PackedImageWriter: PageEmitter {}

/// Where a `TreeLoader` puts the pages it fills, in order.
protocol PageEmitter {
    var pageNumberForNextEmit: UInt64 { get }
    var birth: UInt64 { get }
    mutating func emit(_ page: UnsafeRawBufferPointer) throws(FirnError)
    /// The tree page just emitted, at `level`.
    mutating func sealed(_ ref: PageRef, level: Int)
}

extension PageEmitter {
    mutating func sealed(_ ref: PageRef, level: Int) {}
}

/// Told as a packed image is written (`PackedImageWriter.write`): what a
/// `SubtreeChecker` needs to check its subtrees while the rest is packed.
package protocol PackedImageObserver: AnyObject {
    /// A level-`level` page of named tree `tree` was sealed as `root`; the
    /// pages of its subtree all lie in `firstPage...root.page`.
    func sealedSubtree(tree: String, root: PageRef, level: Int, firstPage: UInt64)
    /// Every page before `page` has been handed to the output.
    func handedOver(before page: UInt64)
}

/// Counts the pages a tree would take, writing nothing.
struct PageCounter: PageEmitter {
    var pageNumberForNextEmit: UInt64
    let birth: UInt64
    mutating func emit(_ page: UnsafeRawBufferPointer) throws(FirnError) { pageNumberForNextEmit += 1 }
}

/// Bulk-loads one B+ tree from entries in key order: full leaves, then one
/// branch page per level filling as children complete. Pages are built with
/// `NodePage`, the layout a write transaction edits.
struct TreeLoader {
    private let leaf: NodePage
    private var branches: [NodePage] = []
    /// The separator each level's page will take into its parent (its first
    /// child's key, which the page itself stores implicitly).
    private var branchFirstKeys: [[UInt8]] = []
    private var pagesFlushed: [Int] = []
    private let pageSize: Int

    init(pageSize: Int) {
        self.pageSize = pageSize
        leaf = NodePage(pageSize: pageSize, isLeaf: true)
    }

    /// True while the leaf being filled has no entries (at the start, and
    /// after each leaf written).
    var leafIsEmpty: Bool { leaf.count == 0 }

    /// Writes the leaf being filled when `page`'s first entry, an inline
    /// cell that stays inline, would not fit in it: what `add` of that entry
    /// would do first (a value too long to stay inline goes to an overflow
    /// chain, and its smaller cell is left to `add`).
    mutating func flushLeafIfFull<W: PageEmitter>(
        before page: PageView, geometry: PageGeometry, writer: inout W
    ) throws(FirnError) {
        guard leaf.count > 0, page.count > 0 else { return }
        let cell = try page.leafCell(0)
        guard case let .inline(bytes) = cell.value,
              geometry.isInline(keyLength: cell.key.count, valueLength: bytes.count) else { return }
        if !leaf.fits(leaf.leafCellSize(keyLength: cell.key.count, value: cell.value)) {
            try flushLeaf(writer: &writer)
        }
    }

    /// Takes every entry of a checked source leaf at once when that gives the
    /// leaf `add` would build from them (`NodePage.adoptAppendedLeaf`); only
    /// while the leaf being filled is empty. False: nothing was taken.
    mutating func adoptAppendedLeaf(_ view: PageView, geometry: PageGeometry) -> Bool {
        leaf.adoptAppendedLeaf(view, geometry: geometry)
    }

    mutating func add<W: PageEmitter>(key: UnsafeRawBufferPointer, value: StoredValue, writer: inout W) throws(FirnError) {
        let size = leaf.leafCellSize(keyLength: key.count, value: value)
        if !leaf.fits(size) {
            try flushLeaf(writer: &writer)
            guard leaf.fits(size) else {
                throw FirnError.corrupt(path: "", page: nil, version: writer.birth,
                                        detail: "an entry of \(key.count) key bytes does not fit an empty page")
            }
        }
        leaf.insert(at: leaf.count, key: key, value: value)
    }

    /// Writes `page` as the next page of the image; returns its reference.
    private func emit<W: PageEmitter>(_ page: NodePage, level: Int, writer: inout W) throws(FirnError) -> PageRef {
        let number = writer.pageNumberForNextEmit
        let (bytes, crc) = page.seal(pageNumber: number, birth: writer.birth, level: level)
        try writer.emit(bytes)
        let ref = PageRef(page: number, birth: writer.birth, checksum: crc)
        writer.sealed(ref, level: level)
        return ref
    }

    private mutating func flushLeaf<W: PageEmitter>(writer: inout W) throws(FirnError) {
        let first = Array(leaf.key(0))
        let ref = try emit(leaf, level: 0, writer: &writer)
        leaf.removeAll()
        try push(key: first, child: ref, level: 1, writer: &writer)
    }

    private mutating func push<W: PageEmitter>(key: [UInt8], child: PageRef, level: Int, writer: inout W) throws(FirnError) {
        if branches.count < level {
            branches.append(NodePage(pageSize: pageSize, isLeaf: false))
            branchFirstKeys.append([])
            pagesFlushed.append(0)
        }
        let page = branches[level - 1]
        if !page.fits(BranchLayout.cellHeaderSize + (page.count == 0 ? 0 : key.count)) {
            try flushBranch(level: level, writer: &writer)
        }
        if page.count == 0 { branchFirstKeys[level - 1] = key }
        key.withUnsafeBytes { page.insert(at: page.count, key: $0, child: child) }
    }

    private mutating func flushBranch<W: PageEmitter>(level: Int, writer: inout W) throws(FirnError) {
        let page = branches[level - 1]
        let ref = try emit(page, level: level, writer: &writer)
        page.removeAll()
        pagesFlushed[level - 1] += 1
        try push(key: branchFirstKeys[level - 1], child: ref, level: level + 1, writer: &writer)
    }

    /// Flushes what is left bottom-up and returns the root (none when empty).
    mutating func finish<W: PageEmitter>(writer: inout W) throws(FirnError) -> PageRef {
        if leaf.count == 0 && branches.isEmpty { return .none }
        if branches.isEmpty { return try emit(leaf, level: 0, writer: &writer) }
        if leaf.count > 0 { try flushLeaf(writer: &writer) }
        var level = 1
        while level <= branches.count {
            let page = branches[level - 1]
            let isTop = level == branches.count
            // A top level that never filled a page and holds one child: that child is the root.
            if isTop && page.count == 1 && pagesFlushed[level - 1] == 0 { return page.child(0) }
            if isTop && page.count == 0 { break }
            if isTop { return try emit(page, level: level, writer: &writer) }
            try flushBranch(level: level, writer: &writer)
            level += 1
        }
        return .none
    }
}

/// An ordered walk the image writer copies a tree from: a checkpoint's
/// tree, or the log's entries merged over it.
protocol EntryWalk {
    var isValid: Bool { get }
    mutating func first() throws(FirnError)
    mutating func next() throws(FirnError)
    func withKey<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(FirnError) -> R?
    func storedValue() throws(FirnError) -> StoredValue?
    /// An overflow value's bytes, its chain read the way the walk reads pages.
    func readOverflow(_ head: PageRef, length: UInt64) throws(FirnError) -> [UInt8]
    /// The checked leaf page the walk stands at the first entry of, when the
    /// walk reads whole pages of one tree (nil otherwise: a merge of the log).
    var leafAtStart: PageView? { get }
    /// Moves past the leaf `leafAtStart` gave, to the next leaf's first entry.
    mutating func skipLeaf() throws(FirnError)
}

extension EntryWalk {
    var leafAtStart: PageView? { nil }
    mutating func skipLeaf() throws(FirnError) {
        throw FirnError.misuse("skipLeaf on a walk that gives no whole leaves")
    }
}

extension TreeCursor: EntryWalk {}
extension LogMergeCursor: EntryWalk {
    func readOverflow(_ head: PageRef, length: UInt64) throws(FirnError) -> [UInt8] {
        try base.readOverflow(head, length: length)
    }
}
