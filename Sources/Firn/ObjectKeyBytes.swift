import FirnCore

/// An object's key, kept inline when it fits in 32 bytes (every Int or
/// UUID primary key, every generated key): an iteration makes one for each
/// object it yields, where an array was a heap allocation (and a free) per
/// object. Longer keys (long string primary keys) go in an array.
struct ObjectKeyBytes {
    private static let inlineCapacity = 32
    private var inline: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// The inline byte count, or -1 when the key is in `spilled`.
    private var inlineCount: Int
    /// Nil for inline keys (a copy then retains nothing).
    private let spilled: [UInt8]?

    /// The key `cursor` is on, nil when it is on none.
    static func current(of cursor: Cursor) throws(FirnError) -> ObjectKeyBytes? {
        var key = ObjectKeyBytes(inlineCount: 0)
        let length = try withUnsafeMutableBytes(of: &key.inline) { buffer throws(FirnError) in try cursor.copyKey(into: buffer) }
        guard let length else { return nil }
        guard length <= inlineCapacity else { return try cursor.key.map { ObjectKeyBytes($0) } }
        key.inlineCount = length
        return key
    }

    private init(inlineCount: Int) {
        self.inlineCount = inlineCount
        spilled = nil
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.inlineCapacity else {
            inlineCount = -1
            spilled = Array(bytes)
            return
        }
        inlineCount = bytes.count
        spilled = nil
        if let source = bytes.baseAddress, bytes.count > 0 {
            withUnsafeMutableBytes(of: &inline) { $0.baseAddress?.copyMemory(from: source, byteCount: bytes.count) }
        }
    }

    init(_ array: [UInt8]) {
        self = array.withUnsafeBytes { ObjectKeyBytes($0) }
    }

    /// The key as an array (allocates for inline keys: for the paths that
    /// look the record up again, write, or link, not for reading).
    var array: [UInt8] {
        if inlineCount < 0 { return spilled ?? [] }
        return withUnsafeBytes { Array($0) }
    }

    /// The key's bytes, valid during `body`.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if inlineCount < 0 { return try (spilled ?? []).withUnsafeBytes(body) }
        var copy = inline
        return try Swift.withUnsafeBytes(of: &copy) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(inlineCount))) }
    }
}
