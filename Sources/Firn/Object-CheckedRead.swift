/// What every `Object` can do with its own key paths (a protocol, because a
/// method of the class cannot take a key path rooted at `Self`).
public protocol CheckedReading: AnyObject {}

extension Object: CheckedReading {}

extension CheckedReading where Self: Object {
    /// The value `keyPath` reads, throwing what a property getter would
    /// stop the program with — a getter cannot throw: `.invalidatedObject`
    /// (deleted), `.invalidatedInstance` (its instance's `invalidate()`),
    /// `.unknownEnumValue` (a raw value this build's enum has no case for),
    /// the engine's error for a damaged record. For values another build of
    /// the app may have written. The stored property the key path reads is
    /// decoded first, then the key path is read (`\.status`,
    /// `\.status.rawValue`); a key path through a link checks the link, not
    /// the target. `.unknownProperty` for a key path that reads no stored
    /// property. An unmanaged object returns its value.
    public func read<Value>(_ keyPath: KeyPath<Self, Value>) throws(DatabaseError) -> Value {
        guard let managed else { return self[keyPath: keyPath] }
        managed.source.checkAccess()
        let info = managed.info
        guard managed.session == managed.source.session else { throw DatabaseError.invalidatedInstance(type: info.name) }
        guard let index = info.index(of: keyPath as PartialKeyPath<Self>) else {
            throw DatabaseError.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath))
        }
        // Same thread, no refresh between: the getter reads what was checked.
        try info.checkStored(managed, index)
        return self[keyPath: keyPath]
    }
}
