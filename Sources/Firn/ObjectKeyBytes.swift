import FirnCore

/// An object's key, kept inline when it fits in 32 bytes (every Int or
/// UUID primary key, every generated key): an iteration makes one for each
/// object it yields, where an array was a heap allocation (and a free) per
/// object. Longer keys (long string primary keys) stay in an array.
struct ObjectKeyBytes {
    private static let inlineCapacity = 32
    private var inline: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// The inline byte count (unused when `spilled` holds the key).
    private var inlineCount = 0
    /// The key when it is longer than `inlineCapacity`; nil otherwise, so
    /// copying an inline key retains nothing.
    private let spilled: [UInt8]?

    /// The key `cursor` is on, nil when it is on none.
    static func current(of cursor: Cursor) throws(FirnError) -> ObjectKeyBytes? {
        var key = ObjectKeyBytes(spilled: nil)
        let length = try withUnsafeMutableBytes(of: &key.inline) { buffer throws(FirnError) in try cursor.copyKey(into: buffer) }
        guard let length else { return nil }
        guard length <= inlineCapacity else { return try cursor.key.map(ObjectKeyBytes.init) }
        key.inlineCount = length
        return key
    }

    private init(spilled: [UInt8]?) {
        self.spilled = spilled
    }

    init(_ array: [UInt8]) {
        guard array.count <= Self.inlineCapacity else {
            self.init(spilled: array)
            return
        }
        self.init(spilled: nil)
        inlineCount = array.count
        withUnsafeMutableBytes(of: &inline) { $0.copyBytes(from: array) }
    }

    /// The key as an array (allocates for inline keys: for the paths that
    /// look the record up again, write, or link, not for reading).
    var array: [UInt8] {
        if let spilled { return spilled }
        return withUnsafeBytes(of: inline) { Array($0.prefix(inlineCount)) }
    }
}
