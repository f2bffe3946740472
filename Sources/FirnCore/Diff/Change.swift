/// One difference between two versions of a tree, as
/// `Snapshot.changes(in:since:_:)` reports it, in key order.
///
/// Keys and values are views into the database map, not copies: they are
/// valid during the callback that receives the change (copy what you keep).
/// `changed` means the key is in both versions with different bytes; a key
/// rewritten with the bytes it had is not a change.
public enum Change {
    /// The key is new in the newer version.
    case inserted(key: UnsafeRawBufferPointer, value: ValueView)
    /// The key is gone from the newer version; `old` is its value in the older one.
    case deleted(key: UnsafeRawBufferPointer, old: ValueView)
    /// The key's value differs between the versions.
    case changed(key: UnsafeRawBufferPointer, old: ValueView, new: ValueView)

    public var key: UnsafeRawBufferPointer {
        switch self {
        case let .inserted(key, _), let .deleted(key, _), let .changed(key, _, _): key
        }
    }
}
