/// Fills one leaf or branch page cell by cell, for writers that produce
/// pages in key order (the packed-image writer). Cells are placed from the
/// end of the page downward; the offset table grows from the header up.
struct PageBuilder {
    let pageSize: Int
    let isLeaf: Bool
    private(set) var count = 0
    private var cellTop: Int
    let buffer: UnsafeMutableRawBufferPointer
    /// The first key of the page, the separator its parent stores.
    private(set) var firstKey: [UInt8] = []

    init(pageSize: Int, isLeaf: Bool) {
        self.pageSize = pageSize
        self.isLeaf = isLeaf
        cellTop = pageSize
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pageSize, alignment: 4096)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    func deallocate() { buffer.deallocate() }

    var isEmpty: Bool { count == 0 }

    private func fits(cellSize: Int) -> Bool {
        PageHeader.size + 2 * (count + 1) + (pageSize - cellTop) + cellSize <= pageSize
    }

    /// Adds a leaf cell; false when the page is full.
    mutating func addLeaf(key: UnsafeRawBufferPointer, value: StoredValue) -> Bool {
        let valueSize: Int
        switch value {
        case let .inline(bytes): valueSize = bytes.count
        case .overflow: valueSize = PageRef.size + 8
        }
        let cellSize = LeafLayout.cellHeaderSize + key.count + valueSize
        guard fits(cellSize: cellSize), let base = buffer.baseAddress else { return false }
        cellTop -= cellSize
        base.storeLE(UInt16(cellTop), at: PageHeader.size + 2 * count)
        base.storeLE(UInt16(key.count), at: cellTop)
        if let k = key.baseAddress, key.count > 0 {
            (base + cellTop + LeafLayout.cellHeaderSize).copyMemory(from: k, byteCount: key.count)
        }
        let valueStart = cellTop + LeafLayout.cellHeaderSize + key.count
        switch value {
        case let .inline(bytes):
            base.storeBytes(of: 0, toByteOffset: cellTop + 2, as: UInt8.self)
            base.storeLE(UInt32(bytes.count), at: cellTop + 4)
            if let v = bytes.baseAddress, bytes.count > 0 {
                (base + valueStart).copyMemory(from: v, byteCount: bytes.count)
            }
        case let .overflow(ref, length):
            base.storeBytes(of: LeafLayout.overflowFlag, toByteOffset: cellTop + 2, as: UInt8.self)
            base.storeLE(UInt32(0), at: cellTop + 4)
            ref.store(to: base, at: valueStart)
            base.storeLE(length, at: valueStart + PageRef.size)
        }
        if count == 0 { firstKey = Array(key) }
        count += 1
        return true
    }

    /// Adds a branch cell; false when the page is full. The first cell's
    /// key is stored empty (it is implicit).
    mutating func addBranch(key: [UInt8], child: PageRef) -> Bool {
        let stored = count == 0 ? 0 : key.count
        let cellSize = BranchLayout.cellHeaderSize + stored
        guard fits(cellSize: cellSize), let base = buffer.baseAddress else { return false }
        cellTop -= cellSize
        base.storeLE(UInt16(cellTop), at: PageHeader.size + 2 * count)
        base.storeLE(UInt16(stored), at: cellTop)
        child.store(to: base, at: cellTop + 2)
        if stored > 0 {
            key.withUnsafeBytes { k in
                if let source = k.baseAddress {
                    (base + cellTop + BranchLayout.cellHeaderSize).copyMemory(from: source, byteCount: stored)
                }
            }
        }
        if count == 0 { firstKey = key }
        count += 1
        return true
    }

    /// Writes the header and checksum for `page`; returns the checksum.
    /// The builder is then reset for the next page.
    mutating func seal(page: UInt64, birth: UInt64, level: Int) -> UInt32 {
        guard let base = buffer.baseAddress else { return 0 }
        PageHeader.write(
            to: base, type: isLeaf ? .leaf : .branch, level: UInt8(level), count: UInt16(count),
            pageNumber: page, birth: birth)
        // Zero the gap between the offset table and the cells (left from the previous page).
        let gapStart = PageHeader.size + 2 * count
        if cellTop > gapStart {
            (base + gapStart).initializeMemory(as: UInt8.self, repeating: 0, count: cellTop - gapStart)
        }
        return PageHeader.seal(buffer)
    }

    mutating func reset() {
        count = 0
        cellTop = pageSize
        firstKey = []
    }
}
