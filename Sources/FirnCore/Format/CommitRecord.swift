/// The commit record in each of the two commit slots (pages 0 and 1). The
/// valid slot with the higher version is normally current (FORMAT.md 2.1);
/// the other holds its durable base. A torn or lost slot write fails the
/// record checksum, and the other slot wins.
///
/// Layout (112 bytes at the start of the slot page, the rest of the page zero):
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 8 | magic `FIRNDB\r\n` (46 49 52 4E 44 42 0D 0A) |
/// | 8 | 4 | format version (2) |
/// | 12 | 4 | page size in bytes |
/// | 16 | 8 | version number (1 for a new file) |
/// | 24 | 8 | commit time, nanoseconds since 1970-01-01 UTC |
/// | 32 | 8 | logical page count (pages in use by the file, slots included) |
/// | 40 | 20 | catalog tree root (`PageRef`) |
/// | 60 | 20 | space tree root (`PageRef`) |
/// | 80 | 8 | bytes written by this commit (pages and record) |
/// | 88 | 8 | free pages (reusable now) |
/// | 96 | 8 | retired pages (replaced, still visible to an older version) |
/// | 104 | 4 | durable base: bit 31 = unsealed; bits 0–30 = version − durable base (0 means 1) |
/// | 108 | 4 | CRC32C of bytes [0, 108) |
///
/// Format 3, a checkpoint that made a commit log region (FORMAT.md 8.2), is
/// 128 bytes: offsets 0–107 as above, then
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 108 | 8 | the log region's first page |
/// | 116 | 4 | the log region's page count (at least 1) |
/// | 120 | 4 | reserved, zero |
/// | 124 | 4 | CRC32C of bytes [0, 124) |
package struct CommitRecord: Sendable, Equatable, Codable {
    /// The size of a format 2 record (no log region).
    package static let size = 112
    /// The size of a format 3 record, the largest: how much of a slot a reader reads.
    package static let maximumSize = 128
    package static let magic: [UInt8] = [0x46, 0x49, 0x52, 0x4E, 0x44, 0x42, 0x0D, 0x0A]
    /// 2: history entries moved from tag `H` to `C` (FORMAT.md 7), so a
    /// small commit's space entries share one leaf. Format 1 files are refused.
    package static let formatVersion: UInt32 = 2
    /// 3: the record names the commit log region its checkpoint made.
    package static let logFormatVersion: UInt32 = 3

    package var pageSize: UInt32
    package var version: UInt64
    package var timestampNanoseconds: UInt64
    package var logicalPageCount: UInt64
    package var catalogRoot: PageRef
    package var spaceRoot: PageRef
    package var bytesWritten: UInt64
    package var freePages: UInt64
    package var retiredPages: UInt64
    /// Written without a sync (a deferred commit of an open group): never
    /// accepted at open (FORMAT.md 2.1); the durable base is current then.
    package var unsealed: Bool
    /// Version − durable base as stored (bits 0–30 of offset 104); 0 is an
    /// ordinary commit's value and means 1. File data: `fieldDefect`
    /// refuses a distance that reaches below version 1.
    package var storedDistance: UInt32
    /// The commit log region this checkpoint made (format 3): its first
    /// page and page count; 0 pages for a record without one (format 2).
    package var logRegionStart: UInt64 = 0
    package var logRegionPages: UInt32 = 0

    /// Whether this checkpoint made a log region: the test to make
    /// instead of `logRegion != nil`, which computes the region's seed.
    package var hasLogRegion: Bool { logRegionPages > 0 }
    /// The format this record is written in: 3 with a log region.
    package var format: UInt32 { hasLogRegion ? Self.logFormatVersion : Self.formatVersion }
    /// Its size on disk.
    package var encodedSize: Int { hasLogRegion ? Self.maximumSize : Self.size }

    /// The bit of offset 104 that marks an unsealed record.
    static let unsealedBit: UInt32 = 1 << 31
    /// The largest distance the field holds: a group is sealed before it
    /// would grow past it.
    package static let maximumDistance: UInt64 = (1 << 31) - 1

    package init(
        pageSize: UInt32, version: UInt64, timestampNanoseconds: UInt64, logicalPageCount: UInt64,
        catalogRoot: PageRef, spaceRoot: PageRef, bytesWritten: UInt64, freePages: UInt64,
        retiredPages: UInt64, unsealed: Bool = false, distance: UInt64 = 1
    ) {
        // 1 is stored as 0, so an ordinary commit's record is byte for byte
        // what ordinary commits always wrote.
        self.unsealed = unsealed
        self.storedDistance = distance == 1 ? 0 : UInt32(truncatingIfNeeded: min(distance, Self.maximumDistance))
        self.pageSize = pageSize
        self.version = version
        self.timestampNanoseconds = timestampNanoseconds
        self.logicalPageCount = logicalPageCount
        self.catalogRoot = catalogRoot
        self.spaceRoot = spaceRoot
        self.bytesWritten = bytesWritten
        self.freePages = freePages
        self.retiredPages = retiredPages
    }

    /// Version − durable base (1 for an ordinary commit).
    package var distance: UInt64 { storedDistance == 0 ? 1 : UInt64(storedDistance) }

    /// The last durable version this record builds on: the version the other
    /// slot holds when both are valid (FORMAT.md 2). `fieldDefect` guarantees
    /// it is at least 1 unless this is version 1 (a new file: then 0, none).
    package var durableBase: UInt64 { version > distance ? version - distance : 0 }

    /// This record rewritten as the durability point of its group: sealed,
    /// same distance.
    package var sealed: CommitRecord {
        var copy = self
        copy.unsealed = false
        return copy
    }

    /// Why a slot's bytes are not a valid record.
    package enum Defect: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case badMagic
        case badChecksum(stored: UInt32, computed: UInt32)
        case unsupportedFormat(UInt32)
        case badPageSize(UInt32)
        /// The checksum holds but a field has a value no writer produces.
        case badField(Field, value: UInt64, expected: String)

        /// The fields `badField` can name.
        package enum Field: String, Sendable, Equatable {
            case version
            case logicalPageCount = "logical page count"
            case catalogRoot = "catalog root page"
            case catalogRootBirth = "catalog root birth"
            case spaceRoot = "space root page"
            case spaceRootBirth = "space root birth"
            case freeAndRetiredPages = "free + retired pages"
            case durableBase = "durable base distance (offset 104)"
            case logRegion = "log region first page (offset 108)"
            case logRegionPages = "log region page count (offset 116)"
            case reserved = "reserved bytes (offset 120)"
        }

        /// True for what a torn or lost slot write leaves behind (or a new
        /// file's empty slot); false when the bytes are checksum-valid and
        /// still wrong, which only damage or a hostile file produces.
        package var isTornOrEmpty: Bool {
            switch self {
            case .empty, .badMagic, .badChecksum: true
            case .unsupportedFormat, .badPageSize, .badField: false
            }
        }

        package var description: String {
            switch self {
            case .empty: "slot is empty (all zero)"
            case .badMagic: "bad magic (expected FIRNDB\\r\\n)"
            case let .badChecksum(stored, computed):
                "record checksum mismatch (stored \(hex32(stored)), computed \(hex32(computed)))"
            case let .unsupportedFormat(v): "unsupported format version \(v) (expected \(CommitRecord.formatVersion) or \(CommitRecord.logFormatVersion))"
            case let .badPageSize(s): "invalid page size \(s) (expected a power of two from 4096 to 65536)"
            case let .badField(field, value, expected): "\(field.rawValue) is \(value) (expected \(expected))"
            }
        }
    }

    /// Decodes and checks a record from a slot's first bytes: at least
    /// `size` of them, `maximumSize` to read a format 3 record.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<CommitRecord, Defect> {
        guard bytes.count >= size, let base = bytes.baseAddress else { return .failure(.empty) }
        if bytes[0..<min(bytes.count, maximumSize)].allSatisfy({ $0 == 0 }) { return .failure(.empty) }
        guard bytes[0..<8].elementsEqual(magic) else { return .failure(.badMagic) }
        // The format says where the checksum is; a torn format field fails
        // the checksum it points to.
        let format = base.le(UInt32.self, at: 8)
        let checked = format == logFormatVersion ? maximumSize - 4 : size - 4
        guard bytes.count >= checked + 4 else { return .failure(.empty) }
        let stored = base.le(UInt32.self, at: checked)
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<checked]))
        guard stored == computed else { return .failure(.badChecksum(stored: stored, computed: computed)) }
        guard format == formatVersion || format == logFormatVersion else { return .failure(.unsupportedFormat(format)) }
        let pageSize = base.le(UInt32.self, at: 12)
        guard PageGeometry.isValidPageSize(Int(pageSize)) else { return .failure(.badPageSize(pageSize)) }
        var record = CommitRecord(
            pageSize: pageSize,
            version: base.le(UInt64.self, at: 16),
            timestampNanoseconds: base.le(UInt64.self, at: 24),
            logicalPageCount: base.le(UInt64.self, at: 32),
            catalogRoot: PageRef(loading: base, at: 40),
            spaceRoot: PageRef(loading: base, at: 60),
            bytesWritten: base.le(UInt64.self, at: 80),
            freePages: base.le(UInt64.self, at: 88),
            retiredPages: base.le(UInt64.self, at: 96)
        )
        let word = base.le(UInt32.self, at: 104)
        record.unsealed = word & unsealedBit != 0
        record.storedDistance = word & ~unsealedBit
        if format == logFormatVersion {
            record.logRegionStart = base.le(UInt64.self, at: 108)
            record.logRegionPages = base.le(UInt32.self, at: 116)
            guard record.logRegionPages >= 1 else {
                return .failure(.badField(.logRegionPages, value: 0, expected: "at least 1 in a format 3 record"))
            }
            let reserved = base.le(UInt32.self, at: 120)
            guard reserved == 0 else { return .failure(.badField(.reserved, value: UInt64(reserved), expected: "0")) }
        }
        if let defect = record.fieldDefect { return .failure(defect) }
        return .success(record)
    }

    /// The record's checksum as encoded: the seed its log region's frames chain from.
    package var checksum: UInt32 {
        // On the stack: `logRegion` asks for it (the chain's seed) several
        // times per log commit, and an array per ask was 3 % of a grouped
        // commit's instructions.
        withUnsafeTemporaryAllocation(byteCount: Self.maximumSize, alignment: 8) { (buffer) -> UInt32 in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            encode(into: buffer)
            return UnsafeRawBufferPointer(buffer).load(fromByteOffset: encodedSize - 4, as: UInt32.self).littleEndian
        }
    }

    /// The log region this checkpoint made, with its epoch and chain seed; nil without one.
    var logRegion: LogRegion? {
        guard hasLogRegion else { return nil }
        return LogRegion(startPage: logRegionStart, pageCount: UInt64(logRegionPages), epoch: version, seed: checksum)
    }

    /// Versions run from 1 to 2^63 − 1: a writer never gets near the top,
    /// so `version + 1` and version arithmetic in the space tree never overflow.
    package static let maximumVersion: UInt64 = (1 << 63) - 1

    /// The first field whose value no writer produces, if any.
    var fieldDefect: Defect? {
        guard version >= 1, version <= Self.maximumVersion else {
            return .badField(.version, value: version, expected: "1…2^63−1")
        }
        guard logicalPageCount >= 2 else {
            return .badField(.logicalPageCount, value: logicalPageCount, expected: "at least 2, the commit slots")
        }
        for (ref, page, birth) in [(catalogRoot, Defect.Field.catalogRoot, Defect.Field.catalogRootBirth),
                                   (spaceRoot, .spaceRoot, .spaceRootBirth)] where !ref.isNone {
            guard ref.page >= 2, ref.page < logicalPageCount else {
                return .badField(page, value: ref.page, expected: "0 (none) or 2..<\(logicalPageCount)")
            }
            guard ref.birth >= 1, ref.birth <= version else {
                return .badField(birth, value: ref.birth, expected: "1…\(version), the record's version")
            }
        }
        // The distance is file data: a durable base below version 1 (or an
        // unsealed version 1, which has no base at all) is damage.
        if storedDistance != 0 && UInt64(storedDistance) >= version || unsealed && version < 2 {
            return .badField(.durableBase, value: UInt64(storedDistance),
                             expected: "0 or 1…\(min(version, Self.maximumDistance + 1) - 1) (version − durable base), and sealed for version 1")
        }
        if hasLogRegion {
            let (end, overflow) = logRegionStart.addingReportingOverflow(UInt64(logRegionPages))
            guard logRegionStart >= 2, !overflow, end <= logicalPageCount else {
                return .badField(.logRegion, value: logRegionStart,
                                 expected: "2 or more, with its \(logRegionPages) pages inside the \(logicalPageCount) in use")
            }
        }
        let (bookkept, overflow) = freePages.addingReportingOverflow(retiredPages)
        guard !overflow, bookkept <= logicalPageCount - 2 else {
            return .badField(.freeAndRetiredPages, value: overflow ? .max : bookkept,
                             expected: "at most \(logicalPageCount - 2), the pages besides the slots")
        }
        return nil
    }

    /// Encodes the record, checksum included, into `size` bytes.
    package func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: encodedSize)
        bytes.withUnsafeMutableBytes { encode(into: $0) }
        return bytes
    }

    /// Writes the record, checksum last, into `buffer` (at least
    /// `encodedSize` bytes, zeroed).
    private func encode(into buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count >= encodedSize else { return }
        for (i, b) in CommitRecord.magic.enumerated() { buffer[i] = b }
        base.storeLE(format, at: 8)
        base.storeLE(pageSize, at: 12)
        base.storeLE(version, at: 16)
        base.storeLE(timestampNanoseconds, at: 24)
        base.storeLE(logicalPageCount, at: 32)
        catalogRoot.store(to: base, at: 40)
        spaceRoot.store(to: base, at: 60)
        base.storeLE(bytesWritten, at: 80)
        base.storeLE(freePages, at: 88)
        base.storeLE(retiredPages, at: 96)
        base.storeLE(storedDistance | (unsealed ? CommitRecord.unsealedBit : 0), at: 104)
        if hasLogRegion {
            base.storeLE(logRegionStart, at: 108)
            base.storeLE(logRegionPages, at: 116)
        }
        let checked = encodedSize - 4
        let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<checked]))
        base.storeLE(crc, at: checked)
    }
}

func hex32(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}
