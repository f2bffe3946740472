/// A leaf being edited, kept in its on-disk layout: the page header area,
/// the sorted cell-offset table growing up from byte 32, and the cells
/// growing down from the end of the page. Inserting moves two bytes per
/// later entry and copies one cell; writing the leaf is sealing the header.
/// Every cell is validated when the buffer is built from a page, and only
/// this type edits it afterwards, so reads need no further bounds checks.
final class LeafBuffer {
    let pageSize: Int
    private(set) var base: UnsafeMutableRawPointer
    private(set) var count = 0
    /// Offset of the lowest cell; cells occupy [cellTop, pageSize).
    private var cellTop: Int

    init(pageSize: Int) {
        self.pageSize = pageSize
        base = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: PageHeader.size)
        cellTop = pageSize
    }

    deinit { base.deallocate() }

    /// Copies a leaf page's cells, checking each one fits inside the page.
    convenience init(copying view: PageView) throws(FirnError) {
        self.init(pageSize: view.pageSize)
        for i in 0..<view.count {
            let cell = try view.leafCell(i)
            guard fits(cellSize(keyLength: cell.key.count, value: cell.value)) else {
                throw view.corrupt("leaf cells overflow the page")
            }
            insert(at: i, key: cell.key, value: cell.value)
        }
    }

    // MARK: sizes

    /// Bytes a cell takes in the cell area (its offset slot excluded).
    @inline(__always)
    func cellSize(keyLength: Int, value: StoredValue) -> Int {
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
        return UnsafeRawBufferPointer(start: base + o + LeafLayout.cellHeaderSize, count: length)
    }

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

    private func storedCellSize(_ index: Int) -> Int {
        cellSize(keyLength: key(index).count, value: value(index))
    }

    /// (index, found): the first entry whose key is >= `key`.
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

    // MARK: editing

    /// Inserts a cell at `index` (the caller checked `fits`). `value`'s
    /// bytes may not point into this buffer.
    func insert(at index: Int, key: UnsafeRawBufferPointer, value: StoredValue) {
        let size = cellSize(keyLength: key.count, value: value)
        cellTop -= size
        let cell = base + cellTop
        cell.storeLE(UInt16(key.count), at: 0)
        if let k = key.baseAddress, key.count > 0 {
            (cell + LeafLayout.cellHeaderSize).copyMemory(from: k, byteCount: key.count)
        }
        let valueStart = LeafLayout.cellHeaderSize + key.count
        switch value {
        case let .inline(bytes):
            cell.storeBytes(of: 0, toByteOffset: 2, as: UInt8.self)
            cell.storeBytes(of: 0, toByteOffset: 3, as: UInt8.self)
            cell.storeLE(UInt32(bytes.count), at: 4)
            if let v = bytes.baseAddress, bytes.count > 0 {
                (cell + valueStart).copyMemory(from: v, byteCount: bytes.count)
            }
        case let .overflow(ref, length):
            cell.storeBytes(of: LeafLayout.overflowFlag, toByteOffset: 2, as: UInt8.self)
            cell.storeBytes(of: 0, toByteOffset: 3, as: UInt8.self)
            cell.storeLE(UInt32(0), at: 4)
            ref.store(to: cell, at: valueStart)
            cell.storeLE(length, at: valueStart + PageRef.size)
        }
        let slot = base + PageHeader.size + 2 * index
        if index < count { (slot + 2).copyMemory(from: slot, byteCount: 2 * (count - index)) }
        slot.storeLE(UInt16(cellTop), at: 0)
        count += 1
    }

    /// Removes the entry at `index`, closing the gap in the cell area.
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
    }

    /// Moves the upper half of the entries (by bytes) into a new buffer.
    func splitOffUpperHalf() -> LeafBuffer {
        let half = usedBytes / 2
        var bytes = 0
        var cut = 0
        while cut < count - 1 {
            let size = 2 + storedCellSize(cut)
            if bytes + size > half && cut > 0 { break }
            bytes += size
            cut += 1
        }
        let right = LeafBuffer(pageSize: pageSize)
        right.append(from: self, range: cut..<count)
        let left = LeafBuffer(pageSize: pageSize)
        left.append(from: self, range: 0..<cut)
        swapStorage(with: left)
        return right
    }

    /// Appends `other`'s entries in `range` (all greater than ours).
    func append(from other: LeafBuffer, range: Range<Int>) {
        for i in range { insert(at: count, key: other.key(i), value: other.value(i)) }
    }

    private func swapStorage(with other: LeafBuffer) {
        swap(&base, &other.base)
        swap(&count, &other.count)
        swap(&cellTop, &other.cellTop)
    }

    /// Seals the buffer as a page: header, zeroed free gap, checksum.
    func seal(pageNumber: UInt64, birth: UInt64) -> (UnsafeRawBufferPointer, UInt32) {
        PageHeader.write(to: base, type: .leaf, level: 0, count: UInt16(count), pageNumber: pageNumber, birth: birth)
        let gap = PageHeader.size + 2 * count
        if cellTop > gap { (base + gap).initializeMemory(as: UInt8.self, repeating: 0, count: cellTop - gap) }
        let page = UnsafeMutableRawBufferPointer(start: base, count: pageSize)
        let crc = PageHeader.seal(page)
        return (UnsafeRawBufferPointer(page), crc)
    }
}
