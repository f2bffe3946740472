/// Keys of the space tree, the B+ tree that records where free space is.
/// Integers in keys are big-endian, so key order is numeric order.
///
/// | key | value | meaning |
/// |-----|-------|---------|
/// | `F` page | empty | the page is free: no readable version sees it |
/// | `P` death birth page | empty | the page was replaced in version `death`; versions `birth…death-1` see it |
/// | `K` version | empty | a version that was pinned when the space was last reclaimed |
/// | `C` version | `HistoryRecord` | the commit history |
/// | `E` end | `LogEpochRecord` | the retired log region of a checkpoint, retired by checkpoint `end` |
///
/// The tags order the tree C < E < F < K < P: a small commit deletes and adds
/// a few `F` and `P` entries and adds `C(v)`, the newest history entry; with
/// the free list and the retired batches short, all of them sit in the
/// tree's last leaf, so the commit rewrites that leaf and the root only.
enum SpaceKey {
    static let free: UInt8 = 0x46  // F
    static let retired: UInt8 = 0x50  // P
    static let pinned: UInt8 = 0x4B  // K
    static let history: UInt8 = 0x43  // C
    static let epoch: UInt8 = 0x45  // E

    static func freePage(_ page: UInt64) -> [UInt8] { key(free, page) }

    static func retiredPage(death: UInt64, birth: UInt64, page: UInt64) -> [UInt8] {
        // One allocation: a reclaim builds a few of these per commit, and
        // appending to a one-byte array reallocated it on the way.
        [UInt8](unsafeUninitializedCapacity: 25) { buffer, count in
            guard let base = buffer.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
            base.storeBytes(of: retired, as: UInt8.self)
            base.storeBE(death, at: 1)
            base.storeBE(birth, at: 9)
            base.storeBE(page, at: 17)
            count = 25
        }
    }

    static func pinnedVersion(_ version: UInt64) -> [UInt8] { key(pinned, version) }

    static func historyEntry(_ version: UInt64) -> [UInt8] { key(history, version) }

    static func epochEntry(end: UInt64) -> [UInt8] { key(epoch, end) }

    /// A tag and a big-endian integer, in one allocation.
    private static func key(_ tag: UInt8, _ value: UInt64) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 9) { buffer, count in
            guard let base = buffer.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
            base.storeBytes(of: tag, as: UInt8.self)
            base.storeBE(value, at: 1)
            count = 9
        }
    }

    /// Decodes a key; nil for a key of no known shape.
    static func decode(_ key: UnsafeRawBufferPointer) -> Decoded? {
        guard let tag = key.first, let base = key.baseAddress else { return nil }
        switch (tag, key.count) {
        case (free, 9): return .free(page: base.be(UInt64.self, at: 1))
        case (retired, 25):
            return .retired(
                death: base.be(UInt64.self, at: 1), birth: base.be(UInt64.self, at: 9),
                page: base.be(UInt64.self, at: 17))
        case (pinned, 9): return .pinned(version: base.be(UInt64.self, at: 1))
        case (history, 9): return .history(version: base.be(UInt64.self, at: 1))
        case (epoch, 9): return .epoch(end: base.be(UInt64.self, at: 1))
        default: return nil
        }
    }

    enum Decoded: Equatable {
        case free(page: UInt64)
        case retired(death: UInt64, birth: UInt64, page: UInt64)
        case pinned(version: UInt64)
        case history(version: UInt64)
        case epoch(end: UInt64)
    }
}

/// One commit in the history kept in the space tree (the last
/// `HistoryRecord.retained` commits).
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 8 | version |
/// | 8 | 8 | commit time, ns since 1970 |
/// | 16 | 8 | file size in bytes |
/// | 24 | 8 | live bytes (pages the version uses, slots included) |
/// | 32 | 8 | free bytes (free pages, plus file space past the last page) |
/// | 40 | 8 | bytes held for pinned versions |
/// | 48 | 8 | pages written by the commit |
/// | 56 | 8 | logical page count of the version |
/// | 64 | 20 | catalog root of the version (`PageRef`), so a pinned version
///   can be read after its commit slot has been reused |
package struct HistoryRecord: Sendable, Codable, Equatable {
    package static let size = 84
    package static let retained: UInt64 = 1024
    /// Old entries are deleted this many at a time (on versions that are a
    /// multiple of it), so between `retained` and `retained + trimBatch − 1`
    /// entries are kept.
    package static let trimBatch: UInt64 = 64

    package var version: UInt64
    package var timestampNanoseconds: UInt64
    package var fileBytes: UInt64
    package var liveBytes: UInt64
    package var freeBytes: UInt64
    package var heldByPinsBytes: UInt64
    package var pagesWritten: UInt64
    package var logicalPageCount: UInt64
    package var catalogRoot: PageRef

    package init(
        version: UInt64, timestampNanoseconds: UInt64, fileBytes: UInt64, liveBytes: UInt64,
        freeBytes: UInt64, heldByPinsBytes: UInt64, pagesWritten: UInt64, logicalPageCount: UInt64,
        catalogRoot: PageRef
    ) {
        self.version = version
        self.timestampNanoseconds = timestampNanoseconds
        self.fileBytes = fileBytes
        self.liveBytes = liveBytes
        self.freeBytes = freeBytes
        self.heldByPinsBytes = heldByPinsBytes
        self.pagesWritten = pagesWritten
        self.logicalPageCount = logicalPageCount
        self.catalogRoot = catalogRoot
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        for field in [version, timestampNanoseconds, fileBytes, liveBytes, freeBytes, heldByPinsBytes, pagesWritten,
                      logicalPageCount, catalogRoot.page, catalogRoot.birth] {
            bytes.appendLE(field)
        }
        bytes.appendLE(catalogRoot.checksum)
        return bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> HistoryRecord? {
        guard bytes.count == size, let base = bytes.baseAddress else { return nil }
        return HistoryRecord(
            version: base.le(UInt64.self, at: 0), timestampNanoseconds: base.le(UInt64.self, at: 8),
            fileBytes: base.le(UInt64.self, at: 16), liveBytes: base.le(UInt64.self, at: 24),
            freeBytes: base.le(UInt64.self, at: 32), heldByPinsBytes: base.le(UInt64.self, at: 40),
            pagesWritten: base.le(UInt64.self, at: 48), logicalPageCount: base.le(UInt64.self, at: 56),
            catalogRoot: PageRef(loading: base, at: 64))
    }
}
