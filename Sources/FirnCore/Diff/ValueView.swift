/// A value as a diff meets it: inline bytes in the map (zero-copy), or an
/// overflow chain that is read only when asked for. Valid during the
/// callback that receives it.
public struct ValueView {
    let stored: StoredValue
    /// The snapshot whose pages hold the value (its map, its path and version for errors).
    let snapshot: Snapshot

    /// The value's length in bytes.
    public var count: Int {
        switch stored {
        case let .inline(bytes): bytes.count
        case let .overflow(_, length): Int(clamping: length)
        }
    }

    /// The bytes, without copying, when the value is stored in its leaf;
    /// nil for a value in an overflow chain (use `withBytes` or `array()`).
    public var inlineBytes: UnsafeRawBufferPointer? {
        if case let .inline(bytes) = stored { return bytes }
        return nil
    }

    /// Calls `body` with the whole value: the map's bytes for an inline
    /// value, an assembled copy for an overflow chain.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FirnError) -> R) throws(FirnError) -> R {
        if case let .inline(bytes) = stored { return try body(bytes) }
        // The module's `withBytes`, which this method's name shadows.
        return try FirnCore.withBytes(try array(), body)
    }

    /// A copy of the value.
    public func array() throws(FirnError) -> [UInt8] {
        do { return try snapshot.source.readValue(stored) } catch {
            throw error.located(in: snapshot.store.path, version: snapshot.version)
        }
    }
}
