/// The header of one frame of a commit log (docs/COMMIT-PATH.md, "The
/// commit log"). A frame starts on a page boundary of its log region and
/// spans `pageCount` whole pages: the header, then the payload, then zeros.
/// A frame never shares a page with another, so writing one never rewrites
/// a page that holds an acknowledged frame.
///
/// Layout (64 bytes at the start of the frame's first page, little-endian):
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 8 | magic `FIRNLOG\n` (46 49 52 4E 4C 4F 47 0A) |
/// | 8 | 8 | epoch: the version of the checkpoint whose region holds the frame |
/// | 16 | 8 | version: a commit frame's new version; a seal frame's sealed version |
/// | 24 | 8 | commit time, nanoseconds since 1970-01-01 UTC |
/// | 32 | 8 | payload length in bytes |
/// | 40 | 4 | pages the frame spans, header included |
/// | 44 | 1 | kind: 1 = commit, 2 = seal |
/// | 45 | 1 | flags: bit 0 = deferred (a commit written without a sync) |
/// | 46 | 2 | zero |
/// | 48 | 4 | chain: the previous frame's header checksum (the region's seed for the first) |
/// | 52 | 4 | CRC32C of the payload |
/// | 56 | 4 | zero |
/// | 60 | 4 | CRC32C of bytes [0, 60) |
struct LogFrameHeader: Equatable, Sendable {
    static let size = 64
    static let magic: [UInt8] = [0x46, 0x49, 0x52, 0x4E, 0x4C, 0x4F, 0x47, 0x0A]
    /// The bit of the flags byte that marks a deferred commit.
    static let deferredFlag: UInt8 = 1

    enum Kind: UInt8, Sendable {
        /// A commit: its payload holds the version's changes (`LogPayload`).
        case commit = 1
        /// A durability point for the open group: no payload; it makes every
        /// deferred commit up to `version` durable.
        case seal = 2
    }

    var epoch: UInt64
    var version: UInt64
    var timestampNanoseconds: UInt64
    var payloadLength: UInt64
    var pageCount: UInt32
    var kind: Kind
    var deferred: Bool
    var previousChecksum: UInt32
    var payloadChecksum: UInt32

    /// Pages a frame with `payloadLength` payload bytes spans: the fewest
    /// that hold header and payload. Nil when that does not fit 32 bits.
    static func pageCount(payloadLength: UInt64, pageSize: Int) -> UInt32? {
        let (total, overflow) = payloadLength.addingReportingOverflow(UInt64(size))
        guard !overflow else { return nil }
        let pages = (total + UInt64(pageSize) - 1) / UInt64(pageSize)
        return UInt32(exactly: pages)
    }

    /// The 64 header bytes, and their checksum (stored at offset 60; the
    /// value the next frame chains to).
    func encoded() -> (bytes: [UInt8], checksum: UInt32) {
        var bytes = [UInt8](repeating: 0, count: Self.size)
        var checksum: UInt32 = 0
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            base.copyMemory(from: Self.magic, byteCount: Self.magic.count)
            base.storeLE(epoch, at: 8)
            base.storeLE(version, at: 16)
            base.storeLE(timestampNanoseconds, at: 24)
            base.storeLE(payloadLength, at: 32)
            base.storeLE(pageCount, at: 40)
            base.storeLE(kind.rawValue, at: 44)
            base.storeLE(deferred ? Self.deferredFlag : 0, at: 45)
            base.storeLE(previousChecksum, at: 48)
            base.storeLE(payloadChecksum, at: 52)
            checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<60]))
            base.storeLE(checksum, at: 60)
        }
        return (bytes, checksum)
    }

    /// What the first bytes of a page are, read as a frame header.
    enum Reading: Equatable {
        /// All 64 bytes zero: nothing was ever written here.
        case blank
        /// No frame magic: other data (pages the region reused).
        case foreign
        /// The magic, but the checksum fails: a frame torn by a power loss.
        case torn(stored: UInt32, computed: UInt32)
        /// The checksum holds but a field has a value no writer produces.
        case defect(String)
        /// A whole header; `checksum` is the value the next frame chains to.
        case header(LogFrameHeader, checksum: UInt32)
    }

    /// Reads a header from the start of `bytes` (at least 64 of them).
    /// Checks the fields that need no context; the scan checks the rest.
    static func read(_ bytes: UnsafeRawBufferPointer) -> Reading {
        guard bytes.count >= size, let base = bytes.baseAddress else { return .defect("shorter than \(size) bytes") }
        let head = UnsafeRawBufferPointer(rebasing: bytes[0..<size])
        if head.allSatisfy({ $0 == 0 }) { return .blank }
        guard head.prefix(magic.count).elementsEqual(magic) else { return .foreign }
        let stored = base.le(UInt32.self, at: 60)
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: head[0..<60]))
        guard stored == computed else { return .torn(stored: stored, computed: computed) }
        guard let kind = Kind(rawValue: base.le(UInt8.self, at: 44)) else {
            return .defect("kind \(base.le(UInt8.self, at: 44)): expected 1 (commit) or 2 (seal)")
        }
        let flags = base.le(UInt8.self, at: 45)
        guard flags & ~deferredFlag == 0 else { return .defect("flags \(flags): expected 0 or 1 (deferred)") }
        guard base.le(UInt16.self, at: 46) == 0, base.le(UInt32.self, at: 56) == 0 else {
            return .defect("reserved bytes 46–47 and 56–59 are not zero")
        }
        let header = LogFrameHeader(
            epoch: base.le(UInt64.self, at: 8), version: base.le(UInt64.self, at: 16),
            timestampNanoseconds: base.le(UInt64.self, at: 24), payloadLength: base.le(UInt64.self, at: 32),
            pageCount: base.le(UInt32.self, at: 40), kind: kind, deferred: flags & deferredFlag != 0,
            previousChecksum: base.le(UInt32.self, at: 48), payloadChecksum: base.le(UInt32.self, at: 52))
        if kind == .seal {
            guard header.payloadLength == 0, !header.deferred else {
                return .defect("seal frame with payload length \(header.payloadLength) and flags \(flags): expected 0 and 0")
            }
        }
        return .header(header, checksum: stored)
    }
}
