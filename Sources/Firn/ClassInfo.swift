@_spi(Reflection) import Swift
import FirnCore
import Synchronization

/// What the SDK knows about one `Object` subclass: its schema, discovered
/// once with `Mirror` over a prototype's `@Persisted` wrappers, and where
/// each wrapper lies in an instance (how accessors find their property).
final class ClassInfo: @unchecked Sendable {
    let type: Object.Type
    let name: String
    /// The stored properties (schema indices 0 ..< count).
    let schema: ObjectSchema
    /// The `LinkingObjects` properties, computed, not stored: numbered
    /// after the stored ones (index `schema.properties.count + k`).
    let linkingProperties: [LinkingProperty]
    /// "add Dog", made once: `add` passes it to every property it stores.
    let addOperation: String
    /// Where each property's wrapper lies in an instance (byte offset,
    /// schema order) and its type, from the runtime's field list checked
    /// against what `Mirror` found on the prototype. `add` reads an
    /// unmanaged object's values through it (`Mirror` decodes every field's
    /// type name on each call, most of the cost of an `add`), and every
    /// property access finds its property by its wrapper's offset.
    private let layout: [(offset: Int, type: any PersistedProperty.Type)]
    /// Schema index + 1 by wrapper offset / 8 (wrappers hold an `Int`, so
    /// their offsets are multiples of 8); 0 where no wrapper lies.
    private let indexByWrapperSlot: [Int32]
    private let indexByKeyPath = Locked(KeyPathIndexes())

    /// Key paths are immutable values, safe to share though not marked Sendable.
    private struct KeyPathIndexes: @unchecked Sendable {
        var map: [AnyKeyPath: Int] = [:]
    }

    /// Never drops an entry: managed objects refer to their info unretained.
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
        // Made only to read its wrappers' ordinals; never managed.
        let prototype = Self.numberedInstance(of: type)
        let wrappers = Self.wrappers(of: prototype)
        var properties: [PropertySchema] = []
        var linking: [LinkingProperty] = []
        for (label, property) in wrappers {
            if let origin = property.linking {
                linking.append(LinkingProperty(name: label, originType: origin.originType, originProperty: origin.originProperty))
                continue
            }
            let stored = property.persistedType
            if let invalid = stored.invalid { throw DatabaseError.invalidSchema(type: name, detail: "property \(label) \(invalid)") }
            properties.append(PropertySchema(
                name: label, type: stored.type, isOptional: stored.isOptional,
                isPrimaryKey: property.isPrimaryKey, isIndexed: property.isIndexed,
                isList: stored.isList, objectType: stored.objectType, isSet: stored.isSet, isMap: stored.isMap))
        }
        guard let fields = Self.layout(of: prototype, ordinals: wrappers.map(\.1.ordinal)) else {
            throw DatabaseError.invalidSchema(
                type: name, detail: "the runtime's field list does not locate its @Persisted properties")
        }
        // Stored properties first, in schema order, then the computed ones:
        // a property's index is its place here.
        let isLinking = wrappers.map { $0.1.linking != nil }
        let layout = zip(fields, isLinking).filter { !$1 }.map(\.0) + zip(fields, isLinking).filter { $1 }.map(\.0)
        self.layout = layout
        linkingProperties = linking
        var slots = [Int32](repeating: 0, count: (layout.map(\.offset).max() ?? 0) / 8 + 1)
        for (index, field) in layout.enumerated() { slots[field.offset / 8] = Int32(index + 1) }
        indexByWrapperSlot = slots
        do {
            schema = try ObjectSchema(name: name, properties: properties, isEmbedded: type is EmbeddedObject.Type)
        } catch {
            if case let .corrupt(_, _, _, detail) = error { throw DatabaseError.invalidSchema(type: name, detail: detail) }
            throw DatabaseError.engine(error)
        }
    }

    /// A new instance of `type` whose wrappers carry distinct numbers
    /// (ordinals), so the runtime's field list can be matched to `Mirror`'s.
    static func numberedInstance(of type: Object.Type) -> Object {
        persistedNumbering.add(1, ordering: .relaxed)
        defer { persistedNumbering.subtract(1, ordering: .relaxed) }
        return type.init()
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
        UnmanagedValues(object: object, layout: layout)
    }

    /// Reads property `index` of `managed` as its getter would, throwing
    /// instead of stopping the program (`read(_:)`). A link or a list
    /// decodes no value: only the object must still be there.
    func checkStored(_ managed: ManagedObject, _ index: Int) throws(DatabaseError) {
        let property = schema.properties[index]
        guard !property.isList, property.type != .object else {
            guard try managed.record() != nil else { throw DatabaseError.invalidatedObject(type: name) }
            return
        }
        try layout[index].type._checkStored(managed, index)
    }

    var primaryKey: (index: Int, property: PropertySchema)? {
        schema.primaryKeyIndex.map { ($0, schema.properties[$0]) }
    }

    /// The type and place of property `index`'s wrapper.
    func wrapperType(_ index: Int) -> any PersistedProperty.Type { layout[index].type }
    func wrapperOffset(_ index: Int) -> Int { layout[index].offset }

    /// The `LinkingObjects` property numbered `index`, nil for a stored one.
    func linkingProperty(_ index: Int) -> LinkingProperty? {
        let k = index - schema.properties.count
        return linkingProperties.indices.contains(k) ? linkingProperties[k] : nil
    }

    /// A property's name, stored or computed (for messages).
    func propertyName(_ index: Int) -> String {
        linkingProperty(index)?.name ?? (schema.properties.indices.contains(index) ? schema.properties[index].name : "#\(index)")
    }

    /// Checks each `LinkingObjects` property against its origin type in a
    /// configuration (`infos`): the origin is listed, and its property is
    /// a link or a list of objects of this type.
    func checkLinkingProperties(in infos: [ObjectIdentifier: ClassInfo]) throws(DatabaseError) {
        for linking in linkingProperties {
            guard let origin = infos.values.first(where: { $0.name == linking.originType }) else {
                throw DatabaseError.invalidSchema(type: name, detail: "\(linking.name) links from \(linking.originType), which is not in the configuration's objectTypes")
            }
            _ = try linking.originIndex(origin, target: name)
        }
    }

    func cachedIndex(_ keyPath: AnyKeyPath) -> Int? { indexByKeyPath.withLock { $0.map[keyPath] } }
    func cache(_ keyPath: AnyKeyPath, _ index: Int) { indexByKeyPath.withLock { $0.map[keyPath] = index } }

    /// The schema index of the property whose wrapper lies `offset` bytes
    /// into an instance, nil when none does.
    @inline(__always)
    func knownIndex(ofWrapperAt offset: Int) -> Int? {
        guard offset >= 0, offset % 8 == 0, offset / 8 < indexByWrapperSlot.count else { return nil }
        let entry = indexByWrapperSlot[offset / 8]
        return entry == 0 ? nil : Int(entry) - 1
    }

    /// The same for a property accessor, whose wrapper is in the layout
    /// by construction (its offset comes from its own stored property).
    func index(ofWrapperAt offset: Int) -> Int {
        guard let index = knownIndex(ofWrapperAt: offset) else {
            fatalError("Firn: \(name) has a property missing from its schema (a @Persisted wrapper at byte \(offset))")
        }
        return index
    }
}

/// An unmanaged object's `@Persisted` values by schema index, read in
/// place through the class's layout.
struct UnmanagedValues {
    let object: Object
    let layout: [(offset: Int, type: any PersistedProperty.Type)]

    func field(_ index: Int) -> PersistedField {
        withExtendedLifetime(object) {
            layout[index].type._field(at: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + layout[index].offset)
        }
    }

    func stored(_ index: Int, _ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        defer { withExtendedLifetime(object) {} }
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        return try layout[index].type._stored(at: base + layout[index].offset, context)
    }
}
