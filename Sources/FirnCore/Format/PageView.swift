import CFirnShims

/// A read-only view of one page in the map (or in a buffer), with every
/// access bounds-checked: a hostile file can make a lookup fail with
/// `FirnError.corrupt`, never read outside the page.
struct PageView {
    let base: UnsafeRawPointer
    let pageSize: Int
    let number: UInt64

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: pageSize) }
    var typeByte: UInt8 { base.load(as: UInt8.self) }
    var level: Int { Int(base.load(fromByteOffset: 1, as: UInt8.self)) }
    var count: Int { Int(base.le(UInt16.self, at: 2)) }
    var storedPageNumber: UInt64 { base.le(UInt64.self, at: 8) }
    var birth: UInt64 { base.le(UInt64.self, at: 16) }
    var storedChecksum: UInt32 { base.le(UInt32.self, at: PageHeader.checksumOffset) }
    var header: PageHeader? { PageHeader(loading: base) }
    /// The header's payload-length field (offset 4); 0 but in overflow pages.
    var payloadField: UInt32 { base.le(UInt32.self, at: 4) }
    /// The header's reserved field (offset 24), 0 in every page.
    var reservedHeaderField: UInt32 { base.le(UInt32.self, at: 24) }

    func computeChecksum() -> UInt32 { PageHeader.computeChecksum(bytes) }

    func corrupt(_ detail: String) -> FirnError {
        .corrupt(path: "", page: number, version: nil, detail: detail)
    }

    /// Checks what every tree page must satisfy before its cells are read:
    /// the expected type, its own page number, and a cell table that fits.
    @inline(__always)
    func checkTreePage(expectLeaf: Bool?) throws(FirnError) {
        let type = typeByte
        if let expectLeaf {
            let want = expectLeaf ? PageType.leaf.rawValue : PageType.branch.rawValue
            if type != want {
                throw corrupt("expected a \(expectLeaf ? "leaf" : "branch") page, found type \(type)")
            }
        } else if type != PageType.leaf.rawValue && type != PageType.branch.rawValue {
            throw corrupt("expected a branch or leaf page, found type \(type)")
        }
        if storedPageNumber != number {
            throw corrupt("page header says page \(storedPageNumber) (misdirected write)")
        }
        if PageHeader.size + 2 * count > pageSize {
            throw corrupt("entry count \(count) does not fit in a \(pageSize)-byte page")
        }
        if type == PageType.branch.rawValue && count == 0 {
            throw corrupt("branch page with no children")
        }
    }

    @inline(__always)
    func cellOffset(_ index: Int) -> Int {
        Int(base.le(UInt16.self, at: PageHeader.size + 2 * index))
    }

    // MARK: leaf cells

    @inline(__always)
    func leafKey(_ index: Int) throws(FirnError) -> UnsafeRawBufferPointer {
        try cellKey(index, headerSize: LeafLayout.cellHeaderSize, kind: "leaf")
    }

    /// The key of cell `index` in a page whose cells start with a 2-byte key
    /// length and put the key after `headerSize` bytes (leaves and branches).
    @inline(__always)
    private func cellKey(_ index: Int, headerSize: Int, kind: StaticString) throws(FirnError) -> UnsafeRawBufferPointer {
        let offset = cellOffset(index)
        guard offset >= PageHeader.size + 2 * count, offset + headerSize <= pageSize else {
            throw corrupt("\(kind) cell \(index) offset \(offset) out of bounds")
        }
        let keyLength = Int(base.le(UInt16.self, at: offset))
        let keyStart = offset + headerSize
        guard keyStart + keyLength <= pageSize else {
            throw corrupt("\(kind) cell \(index) key length \(keyLength) runs past the page end")
        }
        return UnsafeRawBufferPointer(start: base + keyStart, count: keyLength)
    }

    func leafCell(_ index: Int) throws(FirnError) -> LeafCell {
        let key = try leafKey(index)
        let offset = cellOffset(index)
        let flags = base.load(fromByteOffset: offset + 2, as: UInt8.self)
        let valueLength = base.le(UInt32.self, at: offset + 4)
        let valueStart = offset + LeafLayout.cellHeaderSize + key.count
        if flags & LeafLayout.overflowFlag != 0 {
            guard valueStart + PageRef.size + 8 <= pageSize else {
                throw corrupt("leaf cell \(index) overflow reference runs past the page end")
            }
            let ref = PageRef(loading: base, at: valueStart)
            let total = base.le(UInt64.self, at: valueStart + PageRef.size)
            return LeafCell(key: key, value: .overflow(ref, length: total))
        }
        guard valueStart + Int(valueLength) <= pageSize else {
            throw corrupt("leaf cell \(index) value length \(valueLength) runs past the page end")
        }
        let value = UnsafeRawBufferPointer(start: base + valueStart, count: Int(valueLength))
        return LeafCell(key: key, value: .inline(value))
    }

    /// Leaf cell `index` when it is stored plainly: flags and reserved byte
    /// zero (inline), past the offset table and inside the page, its value
    /// short enough to stay inline. Its offset, key length and end; nil for
    /// any other cell, which `leafCell` and the verifier's checks then read.
    /// On a page whose cell table `checkTreePage` found inside the page.
    @inline(__always)
    func plainLeafCell(_ index: Int, geometry: PageGeometry) -> (offset: Int, keyLength: Int, end: Int)? {
        let offset = cellOffset(index)
        guard offset >= PageHeader.size + 2 * count, offset + LeafLayout.cellHeaderSize <= pageSize else { return nil }
        let keyLength = Int(base.le(UInt16.self, at: offset))
        let valueLength = Int(base.le(UInt32.self, at: offset + 4))
        // Both lengths are at most 2^32: the sum cannot overflow.
        let end = offset + LeafLayout.cellHeaderSize + keyLength + valueLength
        guard base.load(fromByteOffset: offset + 2, as: UInt8.self) == 0,
              base.load(fromByteOffset: offset + 3, as: UInt8.self) == 0,
              end <= pageSize, geometry.isInline(keyLength: keyLength, valueLength: valueLength) else { return nil }
        return (offset, keyLength, end)
    }

    /// A leaf cell's flags, reserved byte and inline-length field as
    /// stored (`leafCell` interprets them), for verification.
    func leafCellFields(_ index: Int) throws(FirnError) -> (flags: UInt8, reserved: UInt8, inlineLength: UInt32) {
        let offset = cellOffset(index)
        guard offset >= PageHeader.size + 2 * count, offset + LeafLayout.cellHeaderSize <= pageSize else {
            throw corrupt("leaf cell \(index) offset \(offset) out of bounds")
        }
        return (base.load(fromByteOffset: offset + 2, as: UInt8.self), base.load(fromByteOffset: offset + 3, as: UInt8.self),
                base.le(UInt32.self, at: offset + 4))
    }

    // MARK: branch cells

    @inline(__always)
    func branchKey(_ index: Int) throws(FirnError) -> UnsafeRawBufferPointer {
        try cellKey(index, headerSize: BranchLayout.cellHeaderSize, kind: "branch")
    }

    @inline(__always)
    func branchChild(_ index: Int) throws(FirnError) -> PageRef {
        let offset = cellOffset(index)
        guard offset >= PageHeader.size + 2 * count, offset + BranchLayout.cellHeaderSize <= pageSize else {
            throw corrupt("branch cell \(index) offset \(offset) out of bounds")
        }
        return PageRef(loading: base, at: offset + 2)
    }

    /// The index of the child whose range holds `key`: the last separator
    /// at or below it (separator 0 stands for minus infinity).
    @inline(__always)
    func branchSearch(_ key: UnsafeRawBufferPointer) throws(FirnError) -> Int {
        var low = 1, high = count  // find first separator > key in [1, count)
        while low < high {
            let mid = (low + high) >> 1
            prefetchNextProbes(low, mid, high)
            if compareBytes(try branchKey(mid), key) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    /// A binary search's next probe is the middle of one of the halves
    /// around `mid`: asking for both cells now overlaps their cache misses
    /// with this probe's, instead of one miss after another down the page
    /// (a random lookup in a big file misses at nearly every probe). Only a
    /// hint: a prefetch never faults, and an offset past the page is skipped.
    @inline(__always)
    private func prefetchNextProbes(_ low: Int, _ mid: Int, _ high: Int) {
        guard high &- low > 2 else { return }
        let left = cellOffset((low &+ mid) >> 1), right = cellOffset((mid &+ 1 &+ high) >> 1)
        if left < pageSize { firn_prefetch(base + left) }
        if right < pageSize { firn_prefetch(base + right) }
    }

    /// Asks for the lines a search of this page reads first, before its
    /// header is read: the header and the start of the cell table, and the
    /// lines around the page's middle and quarters. A page filled in key
    /// order (an ascending load, a commit log's sorted replay, a packed
    /// image: cells from the end down) keeps the cells a binary search
    /// probes first about there, wherever their exact size puts them, so
    /// those misses overlap the header's instead of following it one after
    /// another. A page laid out otherwise wastes the hint. Measured on the
    /// bench's get row (a million random lookups in a 131 MB file, the two
    /// builds alternating): 1.16–1.26M reads/s without, 1.30–1.46M with;
    /// the header lines alone gave nothing, three single lines at the
    /// middle and quarters about half of it. Only a hint: a prefetch never
    /// faults, and the view's page lies inside the map.
    @inline(__always)
    func prefetchFirstProbes() {
        let line = 64, middle = pageSize / 2, quarter = pageSize / 4
        firn_prefetch(base)
        firn_prefetch(base + line)
        for i in -2...2 { firn_prefetch(base + middle + line * i) }
        for i in -1...1 {
            firn_prefetch(base + quarter + line * i)
            firn_prefetch(base + pageSize - quarter + line * i)
        }
    }

    /// (index, found): the first leaf cell whose key is >= `key`.
    @inline(__always)
    func leafSearch(_ key: UnsafeRawBufferPointer) throws(FirnError) -> (Int, Bool) {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) >> 1
            prefetchNextProbes(low, mid, high)
            let c = compareBytes(try leafKey(mid), key)
            if c == 0 { return (mid, true) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    // MARK: overflow

    /// (payload, next): this overflow page's bytes of the value and the next page.
    func overflowPayload() throws(FirnError) -> (UnsafeRawBufferPointer, PageRef) {
        guard typeByte == PageType.overflow.rawValue else {
            throw corrupt("expected an overflow page, found type \(typeByte)")
        }
        if storedPageNumber != number {
            throw corrupt("page header says page \(storedPageNumber) (misdirected write)")
        }
        let length = Int(base.le(UInt32.self, at: 4))
        let start = PageHeader.size + PageRef.size
        guard length <= pageSize - start else {
            throw corrupt("overflow payload length \(length) exceeds the page")
        }
        let next = PageRef(loading: base, at: PageHeader.size)
        return (UnsafeRawBufferPointer(start: base + start, count: length), next)
    }
}

/// A decoded leaf cell; the buffers point into the page.
struct LeafCell {
    let key: UnsafeRawBufferPointer
    let value: StoredValue
}

/// A value as a leaf stores it: inline bytes, or the head of an overflow chain.
enum StoredValue {
    case inline(UnsafeRawBufferPointer)
    case overflow(PageRef, length: UInt64)
}

extension FirnError {
    /// Fills in the file path of an error raised below the layer that knows it.
    func located(in path: String, version: UInt64? = nil) -> FirnError {
        if case let .corrupt(p, page, v, detail) = self, p.isEmpty {
            return .corrupt(path: path, page: page, version: v ?? version, detail: detail)
        }
        return self
    }

    /// A corrupt page named with the tree it was read for (FORMAT.md's
    /// rule: a failure names file, page, tree and version), unless the
    /// detail names a tree already.
    package func inTree(_ name: String) -> FirnError {
        if case let .corrupt(p, page, v, detail) = self, !detail.hasPrefix("tree \"") {
            return .corrupt(path: p, page: page, version: v, detail: "tree \"\(name)\": \(detail)")
        }
        return self
    }
}
