/// A leaf or branch being edited, kept in its on-disk layout: the page
/// header area, the sorted cell-offset table growing up from byte 32, and
/// the cells growing down from the end of the page. Inserting moves two
/// bytes per later entry and copies one cell; writing is sealing the
/// header. Every cell is validated when the page is copied in, and only
/// this type edits it afterwards, so reads need no further bounds checks.
///
/// A branch's first separator is kept empty, as on disk: it is implicit
/// (the parent's separator for this page).
///
/// Owned by one write transaction, driven by one thread at a time: the
/// stored properties skip the runtime exclusivity check.
final class NodePage {
    let pageSize: Int
    let isLeaf: Bool
    @exclusivity(unchecked) private(set) var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) private(set) var count = 0
    /// Offset of the lowest cell; cells occupy [cellTop, pageSize).
    @exclusivity(unchecked) private var cellTop: Int
    private var keyStart: Int { isLeaf ? LeafLayout.cellHeaderSize : BranchLayout.cellHeaderSize }

    init(pageSize: Int, isLeaf: Bool) {
        self.pageSize = pageSize
        self.isLeaf = isLeaf
        base = PageBufferPool.take(pageSize: pageSize)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: PageHeader.size)
        cellTop = pageSize
    }

    deinit { PageBufferPool.give(base, pageSize: pageSize) }

    /// A copy of another node page as it stands (a page this process
    /// built, so its cells need no checking): one memcpy instead of the
    /// cell-by-cell copy of `init(copying:)`.
    init(cloning other: NodePage) {
        pageSize = other.pageSize
        isLeaf = other.isLeaf
        base = PageBufferPool.take(pageSize: pageSize)
        base.copyMemory(from: other.base, byteCount: pageSize)
        count = other.count
        cellTop = other.cellTop
    }

    /// Copies a page's cells, checking each one lies inside the page.
    convenience init(copying view: PageView) throws(FirnError) {
        let leaf = view.typeByte == PageType.leaf.rawValue
        self.init(pageSize: view.pageSize, isLeaf: leaf)
        for i in 0..<view.count {
            if leaf {
                let cell = try view.leafCell(i)
                guard fits(leafCellSize(keyLength: cell.key.count, value: cell.value)) else {
                    throw view.corrupt("leaf cells overflow the page")
                }
                insert(at: i, key: cell.key, value: cell.value)
            } else {
                let key = i == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : try view.branchKey(i)
                guard fits(BranchLayout.cellHeaderSize + key.count) else {
                    throw view.corrupt("branch cells overflow the page")
                }
                insert(at: i, key: key, child: try view.branchChild(i))
            }
        }
    }

    // MARK: sizes

    /// Bytes a leaf cell takes in the cell area (its offset slot excluded).
    @inline(__always)
    func leafCellSize(keyLength: Int, value: StoredValue) -> Int {
        switch value {
        case let .inline(bytes): LeafLayout.cellHeaderSize + keyLength + bytes.count
        case .overflow: LeafLayout.cellHeaderSize + keyLength + PageRef.size + 8
        }
    }

    /// Cells plus offset slots: what the page header does not take.
    var usedBytes: Int { 2 * count + (pageSize - cellTop) }
    var capacity: Int { pageSize - PageHeader.size }

    @inline(__always)
    func fits(_ cellSize: Int) -> Bool { usedBytes + 2 + cellSize <= capacity }

    // MARK: reading

    @inline(__always)
    private func offset(_ index: Int) -> Int {
        Int(UnsafeRawPointer(base).le(UInt16.self, at: PageHeader.size + 2 * index))
    }

    @inline(__always)
    func key(_ index: Int) -> UnsafeRawBufferPointer {
        let o = offset(index)
        let length = Int(UnsafeRawPointer(base).le(UInt16.self, at: o))
        return UnsafeRawBufferPointer(start: base + o + keyStart, count: length)
    }

    /// A leaf entry's value.
    func value(_ index: Int) -> StoredValue {
        let o = offset(index)
        let raw = UnsafeRawPointer(base)
        let keyLength = Int(raw.le(UInt16.self, at: o))
        let start = o + LeafLayout.cellHeaderSize + keyLength
        if raw.load(fromByteOffset: o + 2, as: UInt8.self) & LeafLayout.overflowFlag != 0 {
            return .overflow(PageRef(loading: raw, at: start), length: raw.le(UInt64.self, at: start + PageRef.size))
        }
        let length = Int(raw.le(UInt32.self, at: o + 4))
        return .inline(UnsafeRawBufferPointer(start: raw + start, count: length))
    }

    /// A branch cell's child reference as last stored.
    func child(_ index: Int) -> PageRef {
        PageRef(loading: UnsafeRawPointer(base), at: offset(index) + 2)
    }

    func setChild(_ index: Int, _ ref: PageRef) {
        ref.store(to: base, at: offset(index) + 2)
    }

    private func storedCellSize(_ index: Int) -> Int {
        isLeaf ? leafCellSize(keyLength: key(index).count, value: value(index))
            : BranchLayout.cellHeaderSize + key(index).count
    }

    /// Leaves: (index, found) of the first entry whose key is >= `key`.
    @inline(__always)
    func search(_ key: UnsafeRawBufferPointer) -> (Int, Bool) {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) >> 1
            let c = compareBytes(self.key(mid), key)
            if c == 0 { return (mid, true) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    /// Branches: the child whose range holds `key` (the last separator at or
    /// below it; separator 0 stands for minus infinity).
    @inline(__always)
    func childIndex(for key: UnsafeRawBufferPointer) -> Int {
        var low = 1, high = count
        while low < high {
            let mid = (low + high) >> 1
            if compareBytes(self.key(mid), key) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    // MARK: editing

    /// Reserves a cell of `size` bytes at `index`; returns where it starts.
    private func insertCell(at index: Int, size: Int) -> UnsafeMutableRawPointer {
        cellTop -= size
        let slot = base + PageHeader.size + 2 * index
        if index < count { (slot + 2).copyMemory(from: slot, byteCount: 2 * (count - index)) }
        slot.storeLE(UInt16(cellTop), at: 0)
        count += 1
        return base + cellTop
    }

    /// Inserts a leaf entry (the caller checked `fits`). `value`'s bytes may
    /// not point into this page.
    func insert(at index: Int, key: UnsafeRawBufferPointer, value: StoredValue) {
        let cell = insertCell(at: index, size: leafCellSize(keyLength: key.count, value: value))
        cell.storeLE(UInt16(key.count), at: 0)
        if let k = key.baseAddress, key.count > 0 {
            (cell + LeafLayout.cellHeaderSize).copyMemory(from: k, byteCount: key.count)
        }
        let valueStart = LeafLayout.cellHeaderSize + key.count
        cell.storeBytes(of: 0, toByteOffset: 3, as: UInt8.self)
        switch value {
        case let .inline(bytes):
            cell.storeBytes(of: 0, toByteOffset: 2, as: UInt8.self)
            cell.storeLE(UInt32(bytes.count), at: 4)
            if let v = bytes.baseAddress, bytes.count > 0 {
                (cell + valueStart).copyMemory(from: v, byteCount: bytes.count)
            }
        case let .overflow(ref, length):
            cell.storeBytes(of: LeafLayout.overflowFlag, toByteOffset: 2, as: UInt8.self)
            cell.storeLE(UInt32(0), at: 4)
            ref.store(to: cell, at: valueStart)
            cell.storeLE(length, at: valueStart + PageRef.size)
        }
    }

    /// Inserts a branch cell (the caller checked `fits`). Index 0 is only
    /// for the first cell of an empty page, and stores no key (the first
    /// separator is implicit).
    func insert(at index: Int, key: UnsafeRawBufferPointer, child: PageRef) {
        let stored = index == 0 ? 0 : key.count
        let cell = insertCell(at: index, size: BranchLayout.cellHeaderSize + stored)
        cell.storeLE(UInt16(stored), at: 0)
        child.store(to: cell, at: 2)
        if stored > 0, let k = key.baseAddress {
            (cell + BranchLayout.cellHeaderSize).copyMemory(from: k, byteCount: stored)
        }
    }

    /// Removes the entry at `index`, closing the gap in the cell area. In a
    /// branch, a new first cell loses its key (it becomes implicit).
    func remove(at index: Int) {
        let o = offset(index)
        let size = storedCellSize(index)
        if o > cellTop { (base + cellTop + size).copyMemory(from: base + cellTop, byteCount: o - cellTop) }
        cellTop += size
        let slot = base + PageHeader.size + 2 * index
        if index < count - 1 { slot.copyMemory(from: slot + 2, byteCount: 2 * (count - index - 1)) }
        count -= 1
        for i in 0..<count {
            let other = offset(i)
            if other < o { base.storeLE(UInt16(other + size), at: PageHeader.size + 2 * i) }
        }
        if !isLeaf && index == 0 && count > 0 { truncateKey(0) }
    }

    /// Drops a branch cell's key bytes (for the implicit first separator),
    /// closing the gap they leave.
    private func truncateKey(_ index: Int) {
        let o = offset(index)
        let length = Int(UnsafeRawPointer(base).le(UInt16.self, at: o))
        guard length > 0 else { return }
        base.storeLE(UInt16(0), at: o)
        let gapStart = o + BranchLayout.cellHeaderSize
        (base + cellTop + length).copyMemory(from: base + cellTop, byteCount: gapStart - cellTop)
        cellTop += length
        for i in 0..<count {
            let other = offset(i)
            if other <= o { base.storeLE(UInt16(other + length), at: PageHeader.size + 2 * i) }
        }
    }

    /// Moves the upper half of the entries (by bytes) into a new page;
    /// returns it with its first key (for a branch: the separator that goes
    /// up to the parent, no longer stored in either half).
    ///
    /// The caller then inserts a cell of `pendingSize` bytes at
    /// `pendingIndex`: into this page when `pendingIndex <= count` after the
    /// split, into the new one otherwise. Halving the old cells alone can
    /// leave the receiving half with half a page plus a third and no room
    /// for a new third-of-a-page cell; then the cut is chosen counting the
    /// new cell in its place, which always leaves room (each side at most
    /// half of a page and a third, plus one cell of at most a third). The
    /// plain halving stays the first choice, so pages split as they always
    /// have wherever that fits.
    func splitOffUpperHalf(pendingSize: Int, at pendingIndex: Int) -> (NodePage, [UInt8]) {
        var (cut, leftBytes) = halvingCut(pendingSize: nil, at: pendingIndex)
        let pending = 2 + pendingSize
        let receiving = pendingIndex <= cut
            ? leftBytes
            : usedBytes - leftBytes - (isLeaf ? 0 : key(cut).count)  // a branch's right half drops its first key
        if receiving + pending > capacity {
            cut = halvingCut(pendingSize: pendingSize, at: pendingIndex).cut
        }
        let separator = Array(key(cut))
        let right = NodePage(pageSize: pageSize, isLeaf: isLeaf)
        right.append(from: self, range: cut..<count)
        let left = NodePage(pageSize: pageSize, isLeaf: isLeaf)
        left.append(from: self, range: 0..<cut)
        swapStorage(with: left)
        return (right, separator)
    }

    /// The number of cells that stay left so that they take about half the
    /// bytes — of the old cells, plus the pending one at `pendingIndex` when
    /// `pendingSize` is given — and the bytes those cells take. At least one
    /// cell stays on each side.
    private func halvingCut(pendingSize: Int?, at pendingIndex: Int) -> (cut: Int, bytes: Int) {
        let pending = pendingSize.map { 2 + $0 }
        let half = (usedBytes + (pending ?? 0)) / 2
        var bytes = 0
        var cut = 0
        var placed = false
        while cut < count - 1 {
            // The pending cell comes before the old cell now at its index
            // (and goes left with it when the cut falls right after it).
            if let pending, !placed && pendingIndex == cut {
                if bytes + pending > half && cut > 0 { break }
                bytes += pending
                placed = true
                continue
            }
            let size = 2 + storedCellSize(cut)
            if bytes + size > half && (cut > 0 || placed) { break }
            bytes += size
            cut += 1
        }
        return (cut, placed ? bytes - (pending ?? 0) : bytes)
    }

    /// Appends `other`'s entries in `range` (all greater than ours). For
    /// branches, `firstKey` replaces the first appended cell's implicit key.
    func append(from other: NodePage, range: Range<Int>, firstKey: UnsafeRawBufferPointer? = nil) {
        for i in range {
            if isLeaf {
                insert(at: count, key: other.key(i), value: other.value(i))
            } else {
                let key = (i == range.lowerBound ? firstKey : nil) ?? other.key(i)
                insert(at: count, key: key, child: other.child(i))
            }
        }
    }

    /// Takes a source leaf's entries whole when its cells lie exactly where
    /// appending them one by one (`insert(at: count, …)`) would put them:
    /// cell 0 against the page's end, each next cell right below the one
    /// before, all inline, their flag and reserved bytes zero, each value
    /// short enough to stay inline here. Copying the offset table and the
    /// cell area then gives this page byte for byte what the appends would
    /// (the header and the free gap are written when it is sealed), so an
    /// image built either way is the same. Leaves that a bulk load, a packed
    /// image or an ascending load wrote lie this way; others (edited in
    /// place, split) return false and are copied cell by cell. Every offset
    /// and length is checked against the page before anything is copied.
    /// Only for an empty leaf.
    func adoptAppendedLeaf(_ view: PageView, geometry: PageGeometry) -> Bool {
        guard isLeaf, count == 0, view.pageSize == pageSize else { return false }
        let n = view.count
        let table = PageHeader.size + 2 * n
        guard n > 0, table <= pageSize else { return false }
        let source = view.base
        var expected = pageSize
        for i in 0..<n {
            guard let cell = view.plainLeafCell(i, geometry: geometry), cell.end == expected else { return false }
            expected = cell.offset
        }
        (base + PageHeader.size).copyMemory(from: source + PageHeader.size, byteCount: 2 * n)
        (base + expected).copyMemory(from: source + expected, byteCount: pageSize - expected)
        count = n
        cellTop = expected
        return true
    }

    /// Empties the page for reuse (the packed-image writer fills one page
    /// per tree level over and over).
    func removeAll() {
        count = 0
        cellTop = pageSize
    }

    private func swapStorage(with other: NodePage) {
        swap(&base, &other.base)
        swap(&count, &other.count)
        swap(&cellTop, &other.cellTop)
    }

    /// Seals the page: header, zeroed free gap, checksum.
    func seal(pageNumber: UInt64, birth: UInt64, level: Int) -> (UnsafeRawBufferPointer, UInt32) {
        PageHeader.write(
            to: base, type: isLeaf ? .leaf : .branch, level: UInt8(level), count: UInt16(count),
            pageNumber: pageNumber, birth: birth)
        let gap = PageHeader.size + 2 * count
        if cellTop > gap { (base + gap).initializeMemory(as: UInt8.self, repeating: 0, count: cellTop - gap) }
        let page = UnsafeMutableRawBufferPointer(start: base, count: pageSize)
        let crc = PageHeader.seal(page)
        return (UnsafeRawBufferPointer(page), crc)
    }
}
