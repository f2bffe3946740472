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
    /// at or below it (separator 0 stands for minus infinity). `guess`, where
    /// the key falls between the page's bounds (`KeyBounds`), picks the
    /// first probe.
    @inline(__always)
    func branchSearch(_ key: UnsafeRawBufferPointer, guess: Double? = nil) throws(FirnError) -> Int {
        // The first separator > key, in [1, count).
        let n = count
        let first = guess.map { 1 + Int($0 * Double(n - 1)) }
        return try firstAfter(1, n, guess: first, equalGoesRight: true) { (i) throws(FirnError) in
            compareBytes(try branchKey(i), key)
        }.index - 1
    }

    /// The first index in `low..<high` whose cell orders after `key` (at or
    /// after it when `equalGoesRight` is false, which ends the search at an
    /// equal cell, found): `compare(i)` orders cell `i` against the key, and
    /// the cells are in order. Without a guess, a binary search. With one,
    /// the guess is probed first, then its neighbours at distances 1, 2, 4…
    /// towards the key until one lies past it, then a binary search between:
    /// a guess `d` cells off costs about 2·log2(d) + 2 probes, every one of
    /// them near the guess (the lines `prefetchFirstProbes(around:)` asked
    /// for), and a wrong guess at most about twice a binary search's.
    @inline(__always)
    func firstAfter(
        _ low: Int, _ high: Int, guess: Int?, equalGoesRight: Bool,
        _ compare: (Int) throws(FirnError) -> Int
    ) throws(FirnError) -> (index: Int, found: Bool) {
        var low = low, high = high
        if let guess, low < high {
            // Probes g, then g ± 1, 2, 4… the way the first one pointed,
            // each narrowing the range, until one lands past the key.
            let g = Swift.min(Swift.max(guess, low), high - 1)
            var p = g, step = 1
            var direction: Bool? = nil  // true: the key lies right of g
            while p >= low && p < high {
                let c = try compare(p)
                if c == 0 && !equalGoesRight { return (p, true) }
                let right = c <= 0
                if right { low = p + 1 } else { high = p }
                if let direction, direction != right { break }
                direction = right
                p = right ? g + step : g - step
                step <<= 1
            }
        }
        while low < high {
            let mid = (low + high) >> 1
            prefetchNextProbes(low, mid, high)
            let c = try compare(mid)
            if c == 0 && !equalGoesRight { return (mid, true) }
            if c <= 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
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

    /// Asks, before the header is read, for the lines a search guided by
    /// `fraction` (`KeyBounds.fraction`) reads first: the header and the
    /// cell table's start, and the lines around where the cell at that
    /// fraction lies in a page filled in key order (cells from the end
    /// down, so `fraction` of the cell area below the page's end): the guess
    /// and the neighbours `firstAfter` probes next. Six lines either side
    /// cover about one standard deviation of where a random key lands among
    /// a full 4 KiB leaf's 32 cells of 124 bytes, and two of it among a
    /// branch's 100 cells. Measured on the bench's get row (the same build,
    /// the window set per run, alternating): 1.76–1.83× LMDB with three
    /// lines either side, 1.71–2.16× with six, 1.86–1.98× with ten, and no
    /// better beyond. Without a fraction, the binary search's first probes.
    /// Only a hint, as above.
    @inline(__always)
    func prefetchFirstProbes(around fraction: Double?) {
        guard let fraction else { return prefetchFirstProbes() }
        let line = 64, window = 6
        for i in 0..<4 { firn_prefetch(base + line * i) }
        let area = pageSize - PageHeader.size
        let at = pageSize - Int(fraction * Double(area))
        for i in -window...window {
            let offset = at + line * i
            if offset >= 0 && offset < pageSize { firn_prefetch(base + offset) }
        }
    }

    /// (index, found): the first leaf cell whose key is >= `key`. `guess`,
    /// where the key falls between the page's bounds (`KeyBounds`), picks
    /// the first probe.
    @inline(__always)
    func leafSearch(_ key: UnsafeRawBufferPointer, guess: Double? = nil) throws(FirnError) -> (Int, Bool) {
        let n = count
        let r = try firstAfter(0, n, guess: guess.map { Int($0 * Double(n)) }, equalGoesRight: false) { (i) throws(FirnError) in
            compareBytes(try leafKey(i), key)
        }
        return (r.index, r.found)
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
