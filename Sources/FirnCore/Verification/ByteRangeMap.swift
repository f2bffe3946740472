/// One bit per byte of a page, for `verify`'s check that no two cells of a
/// page share a byte (FORMAT.md §5): each cell's range is marked in turn and
/// a range meeting a marked bit overlaps an earlier cell. Linear in the
/// cells and the page's words; sorting the ranges instead cost `verify`
/// about a fifth of its time (measured in the bench). Cells laid out in
/// order (every page a bulk load or compaction writes, most pages a commit
/// writes) are told apart in one pass over the ranges, with no marks.
struct ByteRangeMap {
    private var words: [UInt64]

    init(bytes: Int) {
        words = [UInt64](repeating: 0, count: (bytes + 63) / 64)
    }

    mutating func clear() {
        words.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// The first of `ranges`, in their order, that shares a byte (within
    /// the map) with one before it; nil when they are all apart.
    mutating func firstOverlap(in ranges: [Range<Int>]) -> Range<Int>? {
        // Ranges each after (or each before) the one before them are apart.
        var ascending = true, descending = true
        for i in ranges.indices.dropFirst() {
            if ranges[i].lowerBound < ranges[i - 1].upperBound { ascending = false }
            if ranges[i].upperBound > ranges[i - 1].lowerBound { descending = false }
            if !ascending && !descending { break }
        }
        if ascending || descending { return nil }
        clear()
        return ranges.first { !mark($0) }
    }

    /// Marks bytes `range` (clamped to the map); false when one of them was
    /// marked already.
    mutating func mark(_ range: Range<Int>) -> Bool {
        words.withUnsafeMutableBufferPointer { words in
            let end = min(range.upperBound, words.count * 64)
            var at = max(0, range.lowerBound)
            var apart = true
            while at < end {
                let word = at / 64, bit = at % 64
                let take = min(64 - bit, end - at)
                let mask = take == 64 ? UInt64.max : ((UInt64(1) << UInt64(take)) - 1) << UInt64(bit)
                if words[word] & mask != 0 { apart = false }
                words[word] |= mask
                at += take
            }
            return apart
        }
    }
}
