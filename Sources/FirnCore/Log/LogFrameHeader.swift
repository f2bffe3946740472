/// The header of one frame of a commit log (docs/COMMIT-PATH.md, "The
/// commit log"). A frame starts at a 64-byte boundary of its log region:
/// the header, then the payload, then zeros up to where the next frame
/// starts (its span). A deferred commit's frame ends at the next 64-byte
/// boundary: the frames of an open group share pages. Every other frame (a
/// commit written with its sync, a seal) ends at the next page boundary:
/// a frame that makes versions durable is the last one written into its
/// pages, so writing a frame never rewrites a page that holds an
/// acknowledged frame (a torn write can only take frames of an open group,
/// which a power loss loses whole anyway).
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
/// | 40 | 4 | span: 64-byte units from the frame's first byte to where the next frame starts |
/// | 44 | 1 | kind: 1 = commit, 2 = seal |
/// | 45 | 1 | flags: bit 0 = deferred (a commit written without a sync) |
/// | 46 | 2 | zero |
/// | 48 | 4 | chain: the previous frame's header checksum (the region's seed for the first) |
/// | 52 | 4 | CRC32C of the payload |
/// | 56 | 4 | zero |
/// | 60 | 4 | CRC32C of bytes [0, 60) |
struct LogFrameHeader: Equatable, Sendable {
    static let size = 64
    /// Frames start at multiples of this many bytes from the region's start.
    static let alignment = 64
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
    /// In units of `alignment`: from the frame's first byte to the next frame's.
    var span: UInt32
    var kind: Kind
    var deferred: Bool
    var previousChecksum: UInt32
    var payloadChecksum: UInt32

    /// Whether the next frame may start in this frame's last page: only
    /// after a deferred commit, a member of an open group.
    var packs: Bool { kind == .commit && deferred }

    /// The span (in `alignment` units) of a frame starting at byte `offset`
    /// of its region with `payloadLength` payload bytes: to the next 64-byte
    /// boundary after it when it `packs`, else to the next page boundary.
    /// Nil when that does not fit 32 bits (or `offset` is not aligned).
    static func span(offset: UInt64, payloadLength: UInt64, packs: Bool, pageSize: Int) -> UInt32? {
        let unit = packs ? UInt64(alignment) : UInt64(pageSize)
        guard offset % UInt64(alignment) == 0 else { return nil }
        let (total, overflowA) = payloadLength.addingReportingOverflow(UInt64(size))
        let (end, overflowB) = offset.addingReportingOverflow(total)
        guard !overflowA, !overflowB, end <= UInt64.max - unit else { return nil }
        let next = (end + unit - 1) / unit * unit
        return UInt32(exactly: (next - offset) / UInt64(alignment))
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
            base.storeLE(span, at: 40)
            base.storeLE(kind.rawValue, at: 44)
            base.storeLE(deferred ? Self.deferredFlag : 0, at: 45)
            base.storeLE(previousChecksum, at: 48)
            base.storeLE(payloadChecksum, at: 52)
            checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<60]))
            base.storeLE(checksum, at: 60)
        }
        return (bytes, checksum)
    }

    /// What the bytes where a frame would start are, read as a frame header.
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
            span: base.le(UInt32.self, at: 40), kind: kind, deferred: flags & deferredFlag != 0,
            previousChecksum: base.le(UInt32.self, at: 48), payloadChecksum: base.le(UInt32.self, at: 52))
        if kind == .seal {
            guard header.payloadLength == 0, !header.deferred else {
                return .defect("seal frame with payload length \(header.payloadLength) and flags \(flags): expected 0 and 0")
            }
        }
        return .header(header, checksum: stored)
    }
}
