/// Unaligned little- and big-endian loads and stores. All on-disk integers
/// are little-endian; keys of the space tree are big-endian so that their
/// byte order is their numeric order.
extension UnsafeRawPointer {
    @inline(__always) func le<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
    @inline(__always) func be<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension UnsafeMutableRawPointer {
    @inline(__always) func storeLE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }
    @inline(__always) func storeBE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
    }
}

extension Array where Element == UInt8 {
    @inline(__always) mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
    @inline(__always) mutating func appendBE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
    /// Reads a big-endian integer at `offset`; the caller has checked bounds.
    @inline(__always) func be<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        withUnsafeBytes { T(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}

/// The 8 bytes of `bytes` from `start` as one big-endian number, zero-filled
/// past its end. Byte order is then numeric order: two keys whose words
/// differ compare as their words do; equal words (a key shorter than 8
/// bytes against its zero-filled self, or 8 shared bytes) say nothing, and
/// the bytes after decide.
@inline(__always)
func bigEndianWord(_ bytes: UnsafeRawBufferPointer, from start: Int = 0) -> UInt64 {
    guard let base = bytes.baseAddress, start < bytes.count else { return 0 }
    if start + 8 <= bytes.count { return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self)) }
    var word: UInt64 = 0
    for i in 0..<(bytes.count - start) { word |= UInt64(bytes[start + i]) << UInt64(56 - 8 * i) }
    return word
}

/// Lexicographic comparison of byte strings (memcmp order, shorter first on a tie).
@inline(__always)
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = Swift.min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        // The first 8 bytes as one big-endian word (byte order is numeric order
        // then) settle most comparisons of random keys without a call to memcmp.
        if n >= 8 {
            let x = UInt64(bigEndian: pa.loadUnaligned(as: UInt64.self))
            let y = UInt64(bigEndian: pb.loadUnaligned(as: UInt64.self))
            if x != y { return x < y ? -1 : 1 }
        }
        let r = n > 8 ? memcmp(pa + 8, pb + 8, n - 8) : (n == 8 ? 0 : memcmp(pa, pb, n))
        if r != 0 { return r < 0 ? -1 : 1 }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

@inline(__always)
func compareBytes(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Int {
    a.withUnsafeBytes { compareBytes($0, b) }
}

@inline(__always)
func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBytes { pa in b.withUnsafeBytes { compareBytes(pa, $0) } }
}

#if canImport(Glibc)
import Glibc
#endif

/// `withUnsafeBytes` for a body that throws `FirnError`, keeping the error typed.
@inline(__always) @discardableResult
package func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FirnError) -> R) throws(FirnError) -> R {
    try bytes.withUnsafeBytes { buffer -> Result<R, FirnError> in
        Result { () throws(FirnError) -> R in try body(buffer) }
    }.get()
}

/// `withUnsafeMutableBytes` for a body that throws `FirnError`.
@inline(__always)
func withMutableBytes<R>(
    _ bytes: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(FirnError) -> R
) throws(FirnError) -> R {
    try bytes.withUnsafeMutableBytes { buffer -> Result<R, FirnError> in
        Result { () throws(FirnError) -> R in try body(buffer) }
    }.get()
}
