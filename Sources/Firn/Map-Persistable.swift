import FirnCore

/// Maps as property values: stored as a list with the map flag whose
/// elements are (key, value) entries (docs/FORMAT.md §12.1, §12.4), so a
/// map property is a list property wherever the SDK walks lists by owner
/// (deletes, frozen copies, notifications).
extension Map: PersistableValue {
    public static var _persistedType: PersistedType {
        let value = Value._persistedType
        let invalid = value.isList ? "is a map of collections (a Map holds objects or scalars)" : value.invalid
        return PersistedType(value.type, optional: value.isOptional, list: true, objectType: value.objectType, invalid: invalid, map: true)
    }

    public static var _persistedDefault: Map<Key, Value> { Map() }

    public var _persistedField: PersistedField { PersistedField(nil) }

    public static func _persisted(from field: PersistedField) -> Map<Key, Value>? { nil }

    /// A managed object's map: a view of its entries in the object's source.
    public static func _read(_ access: _ManagedAccess) -> Map<Key, Value> {
        let managed = access.managed
        managed.source.checkAccess()
        return Map(ListStorage(source: managed.source, owner: managed.info, ownerKey: managed.key, index: access.index))
    }

    /// Assigning a map replaces the property's entries (as assigning a list
    /// does); outside a write or on a frozen object it stops the program.
    public static func _write(_ value: Map<Key, Value>, _ access: _ManagedAccess) {
        let (target, core) = ListStorage.assigned(access)
        let entries = value.entries
        do {
            try Map(target).removeAll()
            try fill(target, with: entries, ownerStored: true)
        } catch {
            core.defer(error)
        }
    }

    /// Adding this map's object: its entries (read first) become the
    /// owner's, and this instance becomes a view of them.
    public func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        guard let owner = context.owner else {
            throw DatabaseError.invalidSchema(type: "Map<\(Key.self), \(Value.self)>", detail: "a map cannot be an element")
        }
        let entries = self.entries
        let target = ListStorage(source: context.core, owner: owner, ownerKey: context.ownerKey, index: context.index)
        if context.replacing { try target.removeAll(context.core) }
        try Self.fill(target, with: entries, ownerStored: false)
        if case .unmanaged = storage { storage = .managed(target) }
        return PersistedField(nil)
    }
}

extension Map {
    /// Writes `entries` — in key order, each key once, as a map's entries
    /// always are — into the owner's empty run: one put per entry, where
    /// adding them one key at a time would search and shift for each.
    static func fill(_ target: ListStorage, with entries: [(key: String, value: Value)], ownerStored: Bool) throws(DatabaseError) {
        guard !entries.isEmpty else { return }
        let (core, tree) = try target.writer("store the entries of", ownerStored: ownerStored)
        let context = _StoreContext(core: core, update: .error, operation: "store it in \(target.name)", owner: nil, ownerKey: [], index: target.index)
        var encoded: [[UInt8]] = []
        for entry in entries {
            encoded.append(MapEntry.encode(key: entry.key, element: try target.encode(try entry.value._stored(context).value)))
        }
        try target.insert(encoded: encoded, at: 0, count: 0, core, tree)
        core.changed()
    }
}

/// A map's key as a coding key: a map encodes as a keyed container, in key order.
private struct MapCodingKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

extension Map: Decodable where Value: Decodable {
    /// An unmanaged map of the decoded entries.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys {
            try update(try container.decode(Value.self, forKey: key), forKey: key.stringValue, ownerStored: true)
        }
    }
}

extension Map: Encodable where Value: Encodable {
    /// The entries, as a keyed container.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for (key, value) in self { try container.encode(value, forKey: MapCodingKey(stringValue: key._mapKey)) }
    }
}

extension Map: DescribedList {
    var describedText: String {
        let stored = Value._persistedType
        let value = (stored.type == .object ? stored.objectType ?? "Object" : stored.type.description) + (stored.isOptional ? "?" : "")
        let shown = prefix(ObjectDescription.listShown).map { "\($0.key._mapKey): \(ObjectDescription.text(any: $0.value))" }
        return "Map<String, \(value)> " + ObjectDescription.listText(shown, count: count)
    }
}
