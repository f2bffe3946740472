import FirnCore

/// What a `Map`'s keys may be: `String`, as in Realm.
public protocol _MapKey: Hashable {
    /// The key as the map stores it (its UTF-8 bytes order the entries).
    var _mapKey: String { get }
    static func _fromMapKey(_ key: String) -> Self
}

extension String: _MapKey {
    public var _mapKey: String { self }
    public static func _fromMapKey(_ key: String) -> String { key }
}

/// A dictionary property: `@Persisted var scores = Map<String, Int>()`
/// (the scalar types and their optionals) or `Map<String, Dog?>` (objects,
/// whose values read nil once deleted), as in Realm.
///
/// Stored as a list with the map flag whose elements are (key, value)
/// entries in increasing byte order of their UTF-8 keys (docs/FORMAT.md
/// §12.4, `MapEntry`): a lookup is a binary search over positions (one
/// tree descent per probe), adding a key shifts the entries after it, and
/// everything a list does with its owner (deleted with it, migrations,
/// frozen copies, notifications) holds for a map. Keys are compared by
/// their UTF-8 bytes: two spellings of "é" are two keys.
///
/// A collection of `(key, value)` pairs in key order. An unmanaged map
/// holds its entries itself; adding its object stores them and this
/// instance becomes a view of them. Changing a managed map needs a write
/// transaction: `updateValue`, `removeValue` and `removeAll` throw
/// `.notInWriteTransaction` or `.frozen`; the subscript's setter cannot
/// throw and stops the program on such an error, as a property setter does.
public final class Map<Key: _MapKey, Value: PersistableValue>: RandomAccessCollection, @unchecked Sendable {
    public typealias Element = (key: Key, value: Value)

    /// Unmanaged: the entries sorted by their keys' UTF-8 bytes, as the stored ones are.
    typealias Storage = ViewStorage<[(key: String, value: Value)]>

    // As a List's: only an unmanaged map changes its storage (to managed, once).
    var storage: Storage

    public init() { storage = .unmanaged([]) }

    init(_ managed: ListStorage) { storage = .managed(managed) }

    /// True when this map reads a fixed version (safe from any thread).
    public var isFrozen: Bool { storage.isFrozen }

    /// True for a map of a deleted object.
    public var isInvalidated: Bool { storage.isInvalidated }

    // MARK: reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public var count: Int {
        switch storage {
        case let .unmanaged(entries): return entries.count
        case let .managed(list): return list.viewCount
        }
    }

    /// The entry at `position` in key order; out of range stops the program.
    public subscript(position: Int) -> (key: Key, value: Value) {
        switch storage {
        case let .unmanaged(entries): return (Key._fromMapKey(entries[position].key), entries[position].value)
        case let .managed(list):
            list.source.checkAccess()
            let entry: (key: String, value: FieldValue?)?
            do { entry = try list.mapEntry(at: position) } catch { fatalError("Firn: \(list.name)[\(position)]: \(error)") }
            guard let entry else { fatalError("Firn: \(list.name): index \(position) is out of range of a map of \(count)") }
            return (Key._fromMapKey(entry.key), Self.value(entry.value, list))
        }
    }

    /// The keys, in order (read without resolving the values).
    public var keys: [Key] {
        switch storage {
        case let .unmanaged(entries): return entries.map { Key._fromMapKey($0.key) }
        case let .managed(list):
            list.source.checkAccess()
            var keys: [Key] = []
            do {
                for position in 0..<(try list.count()) {
                    guard let entry = try list.mapEntry(at: position) else { break }
                    keys.append(Key._fromMapKey(entry.key))
                }
            } catch {
                fatalError("Firn: \(list.name).keys: \(error)")
            }
            return keys
        }
    }

    /// The values, in their keys' order.
    public var values: [Value] { map(\.value) }

    /// The value for `key`, nil when the map has none. Setting nil removes
    /// the key (Realm's `map[key] = nil`); setting a value adds or replaces it.
    public subscript(key: Key) -> Value? {
        get {
            do { return try value(forKey: key) } catch { fatalError("Firn: Map<\(Key.self), \(Value.self)>[\(key)]: \(error)") }
        }
        set {
            do {
                if let newValue { try updateValue(newValue, forKey: key) } else { try removeValue(forKey: key) }
            } catch {
                fatalError("Firn: setting Map<\(Key.self), \(Value.self)>[\(key)]: \(error)")
            }
        }
    }

    /// Whether `key` has a value.
    public func contains(key: Key) -> Bool {
        switch storage {
        case let .unmanaged(entries): return Self.search(entries, Array(key._mapKey.utf8)).found
        case let .managed(list):
            list.source.checkAccess()
            do { return try list.mapSearch(Array(key._mapKey.utf8)).found } catch { fatalError("Firn: \(list.name): \(error)") }
        }
    }

    private func value(forKey key: Key) throws(DatabaseError) -> Value? {
        let wanted = Array(key._mapKey.utf8)
        switch storage {
        case let .unmanaged(entries):
            let found = Self.search(entries, wanted)
            return found.found ? entries[found.position].value : nil
        case let .managed(list):
            list.source.checkAccess()
            let found = try list.mapSearch(wanted)
            guard found.found, let entry = try list.mapEntry(at: found.position) else { return nil }
            return Self.value(entry.value, list)
        }
    }

    /// A stored value as `Value` (an object as an object of the map's source).
    static func value(_ stored: FieldValue?, _ list: ListStorage) -> Value {
        guard let value = Value._resolved(PersistedField(stored), _SourceRef(source: list.source)) else {
            fatalError("Firn: \(list.name): a value holds \(stored.map { "\($0)" } ?? "nil"), not a \(Value.self)")
        }
        return value
    }

    // MARK: changing

    /// Sets the value of `key`, adding the key when it is new (an unmanaged
    /// object is added to the database first).
    public func updateValue(_ value: Value, forKey key: Key) throws(DatabaseError) {
        try update(value, forKey: key._mapKey, ownerStored: true)
    }

    func update(_ value: Value, forKey key: String, ownerStored: Bool) throws(DatabaseError) {
        switch storage {
        case var .unmanaged(entries):
            let found = Self.search(entries, Array(key.utf8))
            if found.found { entries[found.position].value = value } else { entries.insert((key, value), at: found.position) }
            storage = .unmanaged(entries)
        case let .managed(list):
            let (core, tree) = try list.writer("update a value of", ownerStored: ownerStored)
            let context = _StoreContext(core: core, update: .error, operation: "store it in \(list.name)",
                                        owner: nil, ownerKey: [], index: list.index)
            let bytes = MapEntry.encode(key: key, element: try list.encode(try value._stored(context).value))
            let found = try list.mapSearch(Array(key.utf8))
            if found.found {
                let removed = try list.embeddedElement(at: found.position)
                try list.replace(at: found.position, encoded: bytes, tree)
                try core.deleteEmbedded(removed?.target, removed.map { [$0.key] } ?? [])
            } else {
                try list.insert(encoded: [bytes], at: found.position, count: found.count, core, tree)
            }
            core.changed()
        }
    }

    /// Removes `key` and its value; returns the value, nil when the key had none.
    @discardableResult
    public func removeValue(forKey key: Key) throws(DatabaseError) -> Value? {
        let wanted = Array(key._mapKey.utf8)
        switch storage {
        case var .unmanaged(entries):
            let found = Self.search(entries, wanted)
            guard found.found else { return nil }
            let removed = entries.remove(at: found.position)
            storage = .unmanaged(entries)
            return removed.value
        case let .managed(list):
            let (core, tree) = try list.writer("remove a key of")
            let found = try list.mapSearch(wanted)
            guard found.found, let entry = try list.mapEntry(at: found.position) else { return nil }
            let removed = try list.embeddedElement(at: found.position)
            // An embedded value is deleted with its entry: it reads as nothing after.
            let value: Value? = removed == nil ? Self.value(entry.value, list) : nil
            try list.remove(at: found.position, tree)
            try core.deleteEmbedded(removed?.target, removed.map { [$0.key] } ?? [])
            core.changed()
            return value
        }
    }

    /// Removes `key` and its value (Realm's name).
    public func removeObject(for key: Key) throws(DatabaseError) { try removeValue(forKey: key) }

    public func removeAll() throws(DatabaseError) {
        switch storage {
        case .unmanaged: storage = .unmanaged([])
        case let .managed(list):
            let (core, _) = try list.writer("remove all of")
            let embedded = list.embeddedTarget()
            let removed = embedded == nil ? [] : try list.linkKeys()
            try list.removeAll(core)
            try core.deleteEmbedded(embedded, removed)
            core.changed()
        }
    }

    /// The entries as stored keys and values (read before they are replaced).
    var entries: [(key: String, value: Value)] {
        if case let .unmanaged(entries) = storage { return entries }
        return map { ($0.key._mapKey, $0.value) }
    }

    /// Where `key` is, or would go, among unmanaged entries in key order.
    static func search(_ entries: [(key: String, value: Value)], _ key: [UInt8]) -> (found: Bool, position: Int) {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = low + (high - low) / 2
            let probe = entries[middle].key.utf8
            if probe.elementsEqual(key) { return (true, middle) }
            if probe.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return (false, low)
    }

    // MARK: frozen values

    /// This map at the version its instance reads now, readable from any thread.
    public func freeze() throws(DatabaseError) -> Map<Key, Value> {
        guard case let .managed(list) = storage else {
            throw DatabaseError.unmanagedObject(type: "Map<\(Key.self), \(Value.self)>", operation: "freeze")
        }
        return try list.frozenCopy().map(Map.init) ?? self
    }

    /// The live map in the caller's instance, or nil when its object was deleted since.
    public func thaw() throws(DatabaseError) -> Map<Key, Value>? {
        guard case let .managed(list) = storage else {
            throw DatabaseError.unmanagedObject(type: "Map<\(Key.self), \(Value.self)>", operation: "thaw")
        }
        guard let live = try list.liveCopy() else { return self }
        return live.map(Map.init)
    }
}

extension ListStorage {
    /// The key and value of a map's entry at `position`, nil when there is none.
    func mapEntry(at position: Int) throws(DatabaseError) -> (key: String, value: FieldValue?)? {
        guard let bytes = try storedBytes(at: position) else { return nil }
        let type = property.type
        return try engine { () throws(FirnError) in
            try bytes.withBytes { (b) throws(FirnError) in try MapEntry.decode(b, as: type) }
        }
    }

    /// Where the entry for `key` (UTF-8 bytes) is, or would go: a binary
    /// search over the positions, whose keys increase (FORMAT.md §12.4).
    func mapSearch(_ key: [UInt8]) throws(DatabaseError) -> (found: Bool, position: Int, count: Int) {
        let count = try count()
        var (low, high) = (0, count)
        while low < high {
            let middle = low + (high - low) / 2
            guard let bytes = try storedBytes(at: middle) else {
                throw DatabaseError.engine(.corrupt(path: "", page: nil, version: nil, detail: "\(treeName): position \(middle) of a map is missing"))
            }
            // -1, 0 or 1: the probe's key against the wanted one.
            let order = try engine { () throws(FirnError) -> Int in
                try bytes.withBytes { (b) throws(FirnError) -> Int in
                    let probe = try MapEntry.split(b).key
                    if probe.elementsEqual(key) { return 0 }
                    return probe.lexicographicallyPrecedes(key) ? -1 : 1
                }
            }
            if order == 0 { return (true, middle, count) }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return (false, low, count)
    }
}
