/// Learns which `@Persisted` property a key path names: the key path is
/// read on a fresh unmanaged instance carrying a recorder, and the
/// wrapper's getter notes where the wrapper lies (the wrappers' accessors
/// are the only code that knows which property a key path reaches).
final class PropertyRecorder {
    /// Each `@Persisted` read, in order: the instance read, its class and
    /// where the wrapper lies. Through a link the reads go on on a
    /// recording instance of its target (`Object._isRecordingKeyPath`).
    var reads: [(object: ObjectIdentifier, type: Object.Type, offset: Int)] = []
    /// The recording instance of the key path's root.
    let root: ObjectIdentifier

    init(root: Object) { self.root = ObjectIdentifier(root) }

    /// Where the last property read on the root lies.
    var wrapperOffset: Int? { reads.last { $0.object == root }?.offset }

    /// The names of the properties a key path through links reads, one per
    /// object (`["owner", "name"]` for `\Dog.owner?.name`); nil unless it
    /// went through a link: each read after the first on the instance the
    /// link before it gave.
    func linkPath() throws(DatabaseError) -> [String]? {
        guard reads.count > 1, reads[0].object == root, Set(reads.map(\.object)).count == reads.count else { return nil }
        var names: [String] = []
        for read in reads {
            let info = try ClassInfo.of(read.type)
            guard let index = info.knownIndex(ofWrapperAt: read.offset), index < info.schema.properties.count else { return nil }
            names.append(info.schema.properties[index].name)
        }
        return names
    }
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
        // A computed property (`LinkingObjects`) is not one a sort, a
        // comparison or a checked read can name.
        guard let index = wrapperIndex(of: keyPath), index < schema.properties.count else { return nil }
        return index
    }

    /// The `LinkingObjects` property `keyPath` reads (a query goes through it), nil for any other.
    func linkingProperty<Root: Object>(of keyPath: PartialKeyPath<Root>) -> LinkingProperty? {
        wrapperIndex(of: keyPath).flatMap(linkingProperty)
    }

    /// The number of the `@Persisted` wrapper `keyPath` reads, stored or
    /// computed, nil when it reads none.
    private func wrapperIndex<Root: Object>(of keyPath: PartialKeyPath<Root>) -> Int? {
        if let cached = cachedIndex(keyPath) { return cached }
        guard let instance = type.init() as? Root else { return nil }
        let recorder = PropertyRecorder(root: instance)
        instance.recorder = recorder
        _ = instance[keyPath: keyPath]
        guard let offset = recorder.wrapperOffset, let index = knownIndex(ofWrapperAt: offset) else { return nil }
        cache(keyPath, index)
        return index
    }

    /// The dotted name of the properties `keyPath` reads through to-one
    /// links (`"owner.name"` for `\Dog.owner?.name`), nil when it reads no
    /// link on the way (then `index(of:)` names its property).
    func linkPath<Root: Object>(of keyPath: PartialKeyPath<Root>) -> String? {
        guard let instance = type.init() as? Root else { return nil }
        let recorder = PropertyRecorder(root: instance)
        instance.recorder = recorder
        _ = instance[keyPath: keyPath]
        guard let names = try? recorder.linkPath() else { return nil }
        return names.joined(separator: ".")
    }
}
