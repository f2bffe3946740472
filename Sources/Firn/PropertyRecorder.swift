/// Learns which `@Persisted` property a key path names: the key path is
/// read on a fresh unmanaged instance carrying a recorder, and the
/// wrapper's getter notes where the wrapper lies (the wrappers' accessors
/// are the only code that knows which property a key path reaches).
final class PropertyRecorder {
    var wrapperOffset: Int?
}

extension ClassInfo {
    /// What an error calls a key path that names no stored property (key
    /// paths do not carry their names on every platform).
    static func unnamed<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> String {
        "a key path to \(Value.self) that reads no stored property"
    }

    /// The schema index of the property `keyPath` reads, or nil when it
    /// reads none (a computed property of other values). Learned once per
    /// key path, then cached.
    func index<Root: Object>(of keyPath: PartialKeyPath<Root>) -> Int? {
        if let cached = cachedIndex(keyPath) { return cached }
        guard let instance = type.init() as? Root else { return nil }
        let recorder = PropertyRecorder()
        instance.recorder = recorder
        _ = instance[keyPath: keyPath]
        // A computed property (`LinkingObjects`) is not one a query, a sort
        // or a checked read can name.
        guard let offset = recorder.wrapperOffset, let index = knownIndex(ofWrapperAt: offset),
              index < schema.properties.count else { return nil }
        cache(keyPath, index)
        return index
    }
}
