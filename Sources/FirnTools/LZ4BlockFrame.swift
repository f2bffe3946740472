import CLZ4
import CXXHash

/// The pieces of a standard LZ4 frame written block by block (LZ4 frame
/// format 1.6.x), so that blocks can be compressed on several threads and a
/// block at the front written last: independent blocks of at most 4 MiB,
/// each followed by its XXH32 block checksum, the content size in the
/// header, no content checksum (its XXH32 runs over the content in order,
/// which a front written last cannot give). `lz4 -t` and `lz4 -d` check
/// every block's checksum, so a damaged byte anywhere is still detected.
enum LZ4BlockFrame {
    static let magic: UInt32 = 0x184D_2204
    /// FLG: version 01, independent blocks, block checksums, content size.
    static let flags: UInt8 = 0b0100_0000 | 0b0010_0000 | 0b0001_0000 | 0b0000_1000
    /// BD: block maximum size 4 MiB (code 7 in bits 4-6).
    static let blockDescriptor: UInt8 = 7 << 4
    static let maxBlockSize = 4 << 20
    /// Magic, FLG, BD, the 8-byte content size, the header checksum.
    static let headerSize = 4 + 1 + 1 + 8 + 1
    /// A block's size field and its checksum.
    static let blockOverhead = 4 + 4
    /// The block size field's high bit: the block is stored raw.
    static let storedBit: UInt32 = 0x8000_0000
    static let endMarkSize = 4

    /// The frame header for content of `contentSize` bytes.
    static func header(contentSize: UInt64) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(headerSize)
        appendLittleEndian(magic, to: &bytes)
        bytes.append(flags)
        bytes.append(blockDescriptor)
        appendLittleEndian(contentSize, to: &bytes)
        // HC: the second byte of XXH32 of the descriptor (FLG to content size).
        let hash = bytes[4...].withUnsafeBytes { XXH32($0.baseAddress, $0.count, 0) }
        bytes.append(UInt8(truncatingIfNeeded: hash >> 8))
        return bytes
    }

    /// The end mark (a block size of 0).
    static let endMark = [UInt8](repeating: 0, count: endMarkSize)

    /// The most bytes `encode` writes for `count` bytes of content.
    static func bound(_ count: Int) -> Int {
        blockOverhead + max(Int(LZ4_compressBound(Int32(count))), count)
    }

    /// Writes `source` (at most `maxBlockSize` bytes) as one block into
    /// `out` (at least `bound(source.count)` bytes): compressed at `level`
    /// (0-2 fast, 3-12 high compression, as `lz4`'s levels), or stored raw
    /// when that is not smaller. Returns the bytes written.
    static func encode(_ source: UnsafeRawBufferPointer, level: Int32, into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(source.count <= maxBlockSize && out.count >= bound(source.count), "LZ4 block larger than planned")
        guard let base = out.baseAddress, let input = source.baseAddress else { return 0 }
        let data = base + 4
        let capacity = Int32(out.count - blockOverhead)
        let src = input.assumingMemoryBound(to: CChar.self)
        let dst = data.assumingMemoryBound(to: CChar.self)
        // The full bound as capacity: a limited output takes LZ4's slower path.
        let compressed = level >= 3
            ? LZ4_compress_HC(src, dst, Int32(source.count), capacity, level)
            : LZ4_compress_default(src, dst, Int32(source.count), capacity)
        let size: Int
        let field: UInt32
        if compressed > 0 && Int(compressed) < source.count {
            size = Int(compressed)
            field = UInt32(size)
        } else {
            size = source.count
            data.copyMemory(from: input, byteCount: size)
            field = UInt32(size) | storedBit
        }
        base.storeBytes(of: field.littleEndian, as: UInt32.self)
        let checksum = UInt32(XXH32(data, size, 0))
        (data + size).storeBytes(of: checksum.littleEndian, as: UInt32.self)
        return 4 + size + 4
    }

    /// A block that stores `source` raw, whatever its content: its size is
    /// known in advance (export reserves room for the slot pages with it).
    static func stored(_ source: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(source.count <= maxBlockSize, "LZ4 block larger than planned")
        var bytes = [UInt8]()
        bytes.reserveCapacity(blockOverhead + source.count)
        appendLittleEndian(UInt32(source.count) | storedBit, to: &bytes)
        bytes.append(contentsOf: source)
        appendLittleEndian(UInt32(XXH32(source.baseAddress, source.count, 0)), to: &bytes)
        return bytes
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
