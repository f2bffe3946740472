/// Leaf pages (type 2): the page header, then `count` 2-byte cell offsets
/// in key order, then the cells.
///
/// A cell:
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 2 | key length |
/// | 2 | 1 | flags: bit 0 = value is in an overflow chain |
/// | 3 | 1 | reserved, 0 |
/// | 4 | 4 | inline value length (0 when overflow) |
/// | 8 | k | key |
/// | 8+k | v | inline value, or: overflow head `PageRef` (20) + total value length u64 (8) |
enum LeafLayout {
    static let cellHeaderSize = 8
    static let overflowFlag: UInt8 = 1
    /// What a cell stores for a value in an overflow chain: the head's
    /// `PageRef` and the value's total length (u64).
    static let overflowValueSize = PageRef.size + 8
}

/// Branch pages (type 1): the page header, then `count` 2-byte cell offsets
/// in key order, then the cells. Child i holds the keys from separator i
/// (inclusive) up to separator i+1; separator 0 is stored empty and means
/// "from the lowest key".
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 2 | key length |
/// | 2 | 20 | child `PageRef` |
/// | 22 | k | separator key |
enum BranchLayout {
    static let cellHeaderSize = 2 + PageRef.size

    static func footprint(keyLength: Int) -> Int { 2 + cellHeaderSize + keyLength }
}

/// Overflow pages (type 3) hold values too large to stay in a leaf, as a
/// chain. The header's payload field says how many value bytes this page
/// carries.
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 32 | page header (count 0, payload length at 4) |
/// | 32 | 20 | next page in the chain (`PageRef`, page 0 = last) |
/// | 52 | n | payload |
///
/// Chains are written from the tail, so each reference can carry the
/// checksum of the page it points to.
enum OverflowLayout {
    static let payloadOffset = PageHeader.size + PageRef.size

    static func write(
        payload: UnsafeRawBufferPointer, next: PageRef, into page: UnsafeMutableRawBufferPointer,
        pageNumber: UInt64, birth: UInt64
    ) {
        guard let base = page.baseAddress else { return }
        page.initializeMemory(as: UInt8.self, repeating: 0)
        PageHeader.write(
            to: base, type: .overflow, level: 0, count: 0, payloadLength: UInt32(payload.count),
            pageNumber: pageNumber, birth: birth)
        next.store(to: base, at: PageHeader.size)
        if let source = payload.baseAddress, payload.count > 0 {
            (base + payloadOffset).copyMemory(from: source, byteCount: payload.count)
        }
    }

    /// Pages a value of `length` bytes takes (at least one).
    static func pageCount(length: Int, pageSize: Int) -> Int {
        let capacity = pageSize - payloadOffset
        return max(1, (length + capacity - 1) / capacity)
    }

    /// Writes `bytes` as a chain on `pages` (index 0 holds the head), tail
    /// first, so each page's reference to the next carries that page's
    /// checksum; `emit` writes each sealed page. Returns the head's reference.
    static func writeChain(
        _ bytes: UnsafeRawBufferPointer, pages: [UInt64], birth: UInt64, scratch: UnsafeMutableRawBufferPointer,
        emit: (UInt64, UnsafeRawBufferPointer) throws(FirnError) -> Void
    ) throws(FirnError) -> PageRef {
        let capacity = scratch.count - payloadOffset
        var next = PageRef.none
        for i in stride(from: pages.count - 1, through: 0, by: -1) {
            let start = i * capacity
            let end = min(bytes.count, start + capacity)
            write(payload: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), next: next,
                  into: scratch, pageNumber: pages[i], birth: birth)
            let crc = PageHeader.seal(scratch)
            try emit(pages[i], UnsafeRawBufferPointer(scratch))
            next = PageRef(page: pages[i], birth: birth, checksum: crc)
        }
        return next
    }
}
