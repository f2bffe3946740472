/// A bounds-checked forward reader over untrusted bytes (object records and
/// schema records): every read checks the bytes left first and fails with
/// `.corrupt` naming what it was reading, so decoders never index past the
/// end and never trust a length or count they have not checked. What is
/// being read is an autoclosure: its description ("field 3 length") is made
/// only for an error, not on every read of every property.
package struct ByteScanner {
    /// The longest varint a UInt64 takes (7 bits a byte).
    package static let maxVarintLength = 10

    package let bytes: UnsafeRawBufferPointer
    package private(set) var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var remaining: Int { bytes.count - offset }
    package var isAtEnd: Bool { offset >= bytes.count }

    @inline(__always)
    package mutating func byte(_ what: @autoclosure () -> String) throws(FirnError) -> UInt8 {
        guard offset < bytes.count else { throw Self.defect("\(what()): the record ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An unsigned LEB128 integer of at most 10 bytes that fits in 64 bits.
    @inline(__always)
    package mutating func varint(_ what: @autoclosure () -> String) throws(FirnError) -> UInt64 {
        // One byte (tags, types' lengths, counts below 128): most varints.
        if offset < bytes.count, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        return try longVarint(what())
    }

    private mutating func longVarint(_ what: @autoclosure () -> String) throws(FirnError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte(what())
            let bits = UInt64(b & 0x7F)
            // The 10th byte may carry only the top bit of a 64-bit value.
            if shift == 63, bits > 1 { throw Self.defect("\(what()): varint overflows 64 bits") }
            result |= bits << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw Self.defect("\(what()): varint longer than \(Self.maxVarintLength) bytes") }
        }
    }

    /// A varint that must be at most `limit` (a count or a length checked
    /// against the bytes that could hold it).
    @inline(__always)
    package mutating func count(_ what: @autoclosure () -> String, atMost limit: Int) throws(FirnError) -> Int {
        let value = try varint(what())
        guard value <= UInt64(max(limit, 0)) else {
            throw Self.defect("\(what()) \(value) exceeds the \(limit) the record can hold")
        }
        return Int(value)
    }

    /// The next `count` bytes, without copying; `count` has been checked
    /// by the caller or is checked here.
    @inline(__always)
    package mutating func slice(_ count: Int, _ what: @autoclosure () -> String) throws(FirnError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else {
            throw Self.defect("\(what()): \(count) bytes needed, \(remaining) left")
        }
        defer { offset += count }
        // A pointer and a length, not a slice: slicing checked the same
        // bounds again and cost more than the rest of a field's read.
        guard let base = bytes.baseAddress else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + offset, count: count)
    }

    /// A little-endian fixed-width integer.
    @inline(__always)
    package mutating func littleEndian<T: FixedWidthInteger>(_: T.Type, _ what: @autoclosure () -> String) throws(FirnError) -> T {
        T(littleEndian: try slice(MemoryLayout<T>.size, what()).loadUnaligned(as: T.self))
    }

    package static func defect(_ detail: String) -> FirnError {
        .corrupt(path: "", page: nil, version: nil, detail: detail)
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as an unsigned LEB128 varint (1 to 10 bytes).
    package mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(truncatingIfNeeded: v))
    }
}
