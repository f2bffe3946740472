@_spi(Reflection) import Swift
import FirnCore
import Synchronization

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
    /// Where each property's wrapper lies in an instance (byte offset,
    /// schema order) and its type, so `add` reads an unmanaged object's
    /// values directly: `Mirror` decodes every field's type name on each
    /// call, most of the cost of an `add`. Nil when the runtime's field list
    /// does not match what `Mirror` found on the prototype; `add` then uses
    /// `Mirror`.
    private let layout: [(offset: Int, type: any PersistedProperty.Type)]?
    private let indexByKeyPath = Locked(KeyPathIndexes())
    /// Per property, the address of the first storage key path seen for it
    /// (0 until then): every property read finds its index here without a
    /// lock or hashing, which on two threads reading frozen objects made the
    /// lock the bottleneck. Those key paths are kept alive (`keptKeyPaths`)
    /// so their addresses are never reused by another key path.
    private let keyPathAddresses: UnsafeMutablePointer<Atomic<UInt>>
    private let keyPathAddressCount: Int
    private let keptKeyPaths = Locked<[AnyKeyPath]>([])

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
        keyPathAddressCount = properties.count
        keyPathAddresses = .allocate(capacity: max(properties.count, 1))
        for i in 0..<properties.count { (keyPathAddresses + i).initialize(to: Atomic<UInt>(0)) }
        layout = Self.layout(of: prototype, ordinals: Self.wrappers(of: prototype).map(\.1.ordinal))
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

    /// The wrappers' offsets and types from the standard library's field
    /// list of the class (superclass fields first, as in `Mirror`), kept
    /// only when every offset holds the prototype's wrapper of the same
    /// ordinal (ordinals are unique per wrapper).
    private static func layout(of prototype: Object, ordinals: [Int]) -> [(offset: Int, type: any PersistedProperty.Type)]? {
        var layout: [(offset: Int, type: any PersistedProperty.Type)] = []
        // `.classType` (1 << 0) and `.ignoreUnknown` (1 << 1) by value: the
        // interface declares them as mutable statics, which Swift 6 refuses.
        let options = _EachFieldOptions(rawValue: 1 << 0 | 1 << 1)
        let listed = _forEachField(of: Swift.type(of: prototype), options: options) { _, offset, type, _ in
            if let wrapper = type as? any PersistedProperty.Type { layout.append((offset, wrapper)) }
            return true
        }
        guard listed, layout.count == ordinals.count else { return nil }
        let matches = withExtendedLifetime(prototype) {
            let base = UnsafeRawPointer(Unmanaged.passUnretained(prototype).toOpaque())
            return zip(layout, ordinals).allSatisfy { $0.type._ordinal(at: base + $0.offset) == $1 }
        }
        return matches ? layout : nil
    }

    /// The unmanaged values of `object` (of this class), for `add`.
    func unmanagedValues(of object: Object) -> UnmanagedValues {
        if let layout { return .layout(object, layout) }
        return .mirrored(Self.wrappers(of: object).map(\.1))
    }

    var primaryKey: (index: Int, property: PropertySchema)? {
        schema.primaryKeyIndex.map { ($0, schema.properties[$0]) }
    }

    func index(ofOrdinal ordinal: Int) -> Int? { indexByOrdinal[ordinal] }
    func cachedIndex(_ keyPath: AnyKeyPath) -> Int? { indexByKeyPath.withLock { $0.map[keyPath] } }
    func cache(_ keyPath: AnyKeyPath, _ index: Int) { indexByKeyPath.withLock { $0.map[keyPath] = index } }

    /// Makes `keyPath`, the storage key path of property `index`, the one
    /// `knownIndex` finds when the property has none yet.
    func remember(storageKeyPath keyPath: AnyKeyPath, _ index: Int) {
        guard index >= 0, index < keyPathAddressCount, keyPathAddresses[index].load(ordering: .relaxed) == 0 else { return }
        let address = UInt(bitPattern: ObjectIdentifier(keyPath))
        if keyPathAddresses[index].compareExchange(expected: 0, desired: address, ordering: .relaxed).exchanged {
            keptKeyPaths.withLock { $0.append(keyPath) }
        }
    }

    /// The index of the property whose first-seen storage key path is
    /// `keyPath` (the same object: key path literals are made once), nil
    /// otherwise; lock-free.
    @inline(__always)
    func knownIndex(_ keyPath: AnyKeyPath) -> Int? {
        let address = UInt(bitPattern: ObjectIdentifier(keyPath))
        for i in 0..<keyPathAddressCount where keyPathAddresses[i].load(ordering: .relaxed) == address { return i }
        return nil
    }
}

/// An unmanaged object's `@Persisted` values by schema index: read in place
/// through the class's layout, or from the wrappers `Mirror` copied.
enum UnmanagedValues {
    case layout(Object, [(offset: Int, type: any PersistedProperty.Type)])
    case mirrored([any PersistedProperty])

    func field(_ index: Int) -> PersistedField {
        switch self {
        case let .layout(object, layout):
            return withExtendedLifetime(object) {
                layout[index].type._field(at: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + layout[index].offset)
            }
        case let .mirrored(wrappers): return wrappers[index].field
        }
    }

    func stored(_ index: Int, _ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        switch self {
        case let .layout(object, layout):
            defer { withExtendedLifetime(object) {} }
            let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            return try layout[index].type._stored(at: base + layout[index].offset, context)
        case let .mirrored(wrappers): return try wrappers[index].stored(context)
        }
    }
}
