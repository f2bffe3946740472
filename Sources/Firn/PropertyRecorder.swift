/// Learns which `@Persisted` property a key path names: the key path is
/// read on a fresh unmanaged instance carrying a recorder, and the
/// wrapper's getter notes its ordinal (the wrappers' accessors are the only
/// code that knows which property a key path reaches).
final class PropertyRecorder {
    var ordinal: Int?
}

extension ClassInfo {
    /// The schema index of the property `keyPath` reads, or nil when it
    /// reads none (a computed property of other values, a nested path).
    /// Learned once per key path, then cached.
    /// What an error calls a key path that names no stored property (key
    /// paths do not carry their names on every platform).
    static func unnamed<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> String {
        "a key path to \(Value.self) that reads no stored property"
    }

    func index<Root: Object, Value>(of keyPath: KeyPath<Root, Value>) -> Int? {
        if let cached = cachedIndex(keyPath) { return cached }
        guard let instance = type.init() as? Root else { return nil }
        let recorder = PropertyRecorder()
        instance.recorder = recorder
        _ = instance[keyPath: keyPath]
        guard let ordinal = recorder.ordinal,
              let index = Self.wrappers(of: instance).firstIndex(where: { $0.1.ordinal == ordinal }) else { return nil }
        cache(keyPath, index)
        return index
    }
}
