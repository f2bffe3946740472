/// The commit record in each of the two commit slots (pages 0 and 1). The
/// valid slot with the higher version is current; the other holds the
/// version before it. A torn or lost slot write fails the record checksum,
/// and the other slot wins.
///
/// Layout (112 bytes at the start of the slot page, the rest of the page zero):
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 8 | magic `FIRNDB\r\n` (46 49 52 4E 44 42 0D 0A) |
/// | 8 | 4 | format version (1) |
/// | 12 | 4 | page size in bytes |
/// | 16 | 8 | version number (1 for a new file) |
/// | 24 | 8 | commit time, nanoseconds since 1970-01-01 UTC |
/// | 32 | 8 | logical page count (pages in use by the file, slots included) |
/// | 40 | 20 | catalog tree root (`PageRef`) |
/// | 60 | 20 | space tree root (`PageRef`) |
/// | 80 | 8 | bytes written by this commit (pages and record) |
/// | 88 | 8 | free pages (reusable now) |
/// | 96 | 8 | retired pages (replaced, still visible to an older version) |
/// | 104 | 4 | reserved, 0 |
/// | 108 | 4 | CRC32C of bytes [0, 108) |
public struct CommitRecord: Sendable, Equatable, Codable {
    public static let size = 112
    public static let magic: [UInt8] = [0x46, 0x49, 0x52, 0x4E, 0x44, 0x42, 0x0D, 0x0A]
    public static let formatVersion: UInt32 = 1

    public var pageSize: UInt32
    public var version: UInt64
    public var timestampNanoseconds: UInt64
    public var logicalPageCount: UInt64
    public var catalogRoot: PageRef
    public var spaceRoot: PageRef
    public var bytesWritten: UInt64
    public var freePages: UInt64
    public var retiredPages: UInt64

    public init(
        pageSize: UInt32, version: UInt64, timestampNanoseconds: UInt64, logicalPageCount: UInt64,
        catalogRoot: PageRef, spaceRoot: PageRef, bytesWritten: UInt64, freePages: UInt64,
        retiredPages: UInt64
    ) {
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

    /// Why a slot's bytes are not a valid record.
    public enum Defect: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case badMagic
        case badChecksum(stored: UInt32, computed: UInt32)
        case unsupportedFormat(UInt32)
        case badPageSize(UInt32)

        public var description: String {
            switch self {
            case .empty: "slot is empty (all zero)"
            case .badMagic: "bad magic (expected FIRNDB\\r\\n)"
            case let .badChecksum(stored, computed):
                "record checksum mismatch (stored \(hex32(stored)), computed \(hex32(computed)))"
            case let .unsupportedFormat(v): "unsupported format version \(v) (expected \(CommitRecord.formatVersion))"
            case let .badPageSize(s): "invalid page size \(s) (expected a power of two from 4096 to 65536)"
            }
        }
    }

    /// Decodes and checks a record; `bytes` must hold at least `size` bytes.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<CommitRecord, Defect> {
        guard bytes.count >= size, let base = bytes.baseAddress else { return .failure(.empty) }
        if bytes[0..<size].allSatisfy({ $0 == 0 }) { return .failure(.empty) }
        guard bytes[0..<8].elementsEqual(magic) else { return .failure(.badMagic) }
        let stored = base.le(UInt32.self, at: 108)
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<108]))
        guard stored == computed else { return .failure(.badChecksum(stored: stored, computed: computed)) }
        let format = base.le(UInt32.self, at: 8)
        guard format == formatVersion else { return .failure(.unsupportedFormat(format)) }
        let pageSize = base.le(UInt32.self, at: 12)
        guard PageGeometry.isValidPageSize(Int(pageSize)) else { return .failure(.badPageSize(pageSize)) }
        return .success(CommitRecord(
            pageSize: pageSize,
            version: base.le(UInt64.self, at: 16),
            timestampNanoseconds: base.le(UInt64.self, at: 24),
            logicalPageCount: base.le(UInt64.self, at: 32),
            catalogRoot: PageRef(loading: base, at: 40),
            spaceRoot: PageRef(loading: base, at: 60),
            bytesWritten: base.le(UInt64.self, at: 80),
            freePages: base.le(UInt64.self, at: 88),
            retiredPages: base.le(UInt64.self, at: 96)
        ))
    }

    /// Encodes the record, checksum included, into `size` bytes.
    public func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: CommitRecord.size)
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            for (i, b) in CommitRecord.magic.enumerated() { buffer[i] = b }
            base.storeLE(CommitRecord.formatVersion, at: 8)
            base.storeLE(pageSize, at: 12)
            base.storeLE(version, at: 16)
            base.storeLE(timestampNanoseconds, at: 24)
            base.storeLE(logicalPageCount, at: 32)
            catalogRoot.store(to: base, at: 40)
            spaceRoot.store(to: base, at: 60)
            base.storeLE(bytesWritten, at: 80)
            base.storeLE(freePages, at: 88)
            base.storeLE(retiredPages, at: 96)
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<108]))
            base.storeLE(crc, at: 108)
        }
        return bytes
    }
}

func hex32(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}
