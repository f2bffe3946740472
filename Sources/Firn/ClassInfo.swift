import FirnCore

/// What the SDK knows about one `Object` subclass: its schema, discovered
/// once with `Mirror` over a prototype's `@Persisted` wrappers, and the
/// map from the wrappers' key paths to the schema's property indices.
final class ClassInfo: @unchecked Sendable {
    let type: Object.Type
    let name: String
    let schema: ObjectSchema
    /// An instance made only to read its wrappers' ordinals; never managed.
    let prototype: Object
    private let indexByOrdinal: [Int: Int]
    /// "add Dog", made once: `add` passes it to every property it stores.
    let addOperation: String
    private let indexByKeyPath = Locked(KeyPathIndexes())

    /// Key paths are immutable values, safe to share though not marked Sendable.
    private struct KeyPathIndexes: @unchecked Sendable {
        var map: [AnyKeyPath: Int] = [:]
    }

    private static let known = Locked<[ObjectIdentifier: ClassInfo]>([:])

    /// The (cached) description of `type`; `.invalidSchema` when the class
    /// cannot be stored as declared.
    static func of(_ type: Object.Type) throws(DatabaseError) -> ClassInfo {
        if let info = known.withLock({ $0[ObjectIdentifier(type)] }) { return info }
        let info = try ClassInfo(type)
        return known.withLock { known in
            if let existing = known[ObjectIdentifier(type)] { return existing }
            known[ObjectIdentifier(type)] = info
            return info
        }
    }

    private init(_ type: Object.Type) throws(DatabaseError) {
        self.type = type
        name = String(describing: type)
        addOperation = "add \(name)"
        prototype = type.init()
        var properties: [PropertySchema] = []
        var indexByOrdinal: [Int: Int] = [:]
        for (label, property) in Self.wrappers(of: prototype) {
            let stored = property.persistedType
            if let invalid = stored.invalid { throw DatabaseError.invalidSchema(type: name, detail: "property \(label) \(invalid)") }
            indexByOrdinal[property.ordinal] = properties.count
            properties.append(PropertySchema(
                name: label, type: stored.type, isOptional: stored.isOptional,
                isPrimaryKey: property.isPrimaryKey, isIndexed: property.isIndexed,
                isList: stored.isList, objectType: stored.objectType))
        }
        self.indexByOrdinal = indexByOrdinal
        do {
            schema = try ObjectSchema(name: name, properties: properties)
        } catch {
            if case let .corrupt(_, _, _, detail) = error { throw DatabaseError.invalidSchema(type: name, detail: detail) }
            throw DatabaseError.engine(error)
        }
    }

    /// The `@Persisted` wrappers of `object`, superclass properties first,
    /// each in declaration order (the schema's order), named without the
    /// wrapper's leading underscore.
    static func wrappers(of object: Object) -> [(String, any PersistedProperty)] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var out: [(String, any PersistedProperty)] = []
        for mirror in mirrors {
            for child in mirror.children {
                guard let property = child.value as? any PersistedProperty, let label = child.label else { continue }
                out.append((label.hasPrefix("_") ? String(label.dropFirst()) : label, property))
            }
        }
        return out
    }

    var primaryKey: (index: Int, property: PropertySchema)? {
        schema.primaryKeyIndex.map { ($0, schema.properties[$0]) }
    }

    func index(ofOrdinal ordinal: Int) -> Int? { indexByOrdinal[ordinal] }
    func cachedIndex(_ keyPath: AnyKeyPath) -> Int? { indexByKeyPath.withLock { $0.map[keyPath] } }
    func cache(_ keyPath: AnyKeyPath, _ index: Int) { indexByKeyPath.withLock { $0.map[keyPath] = index } }
}
