import FirnCore

/// A value `@Persisted` can store: Bool, Int, Int8…Int64, Double, Float,
/// String, Data, Date, UUID, Decimal, `PersistableEnum`s and optionals of
/// each, links (`Dog?`), lists (`List<Dog>`, `List<Int>`), sets (`MutableSet<String>`) and maps
/// (`Map<String, Int>`). The
/// underscored requirements are the SDK's; applications do not implement them.
public protocol PersistableValue {
    /// The stored type.
    static var _persistedType: PersistedType { get }
    /// The value a property of this type has when its record has no field.
    static var _persistedDefault: Self { get }
    /// This value as a record field.
    var _persistedField: PersistedField { get }
    /// The value of a field; nil when the field holds another type.
    static func _persisted(from field: PersistedField) -> Self?

    /// The property's value in a managed object (default: its record field).
    static func _read(_ access: _ManagedAccess) -> Self
    /// Sets the property of a managed object (default: its record field).
    static func _write(_ value: Self, _ access: _ManagedAccess)
    /// The stored form of this value when it enters the database (added
    /// with its object, appended to a list): links add their unmanaged
    /// targets, lists write their elements. Default: `_persistedField`.
    func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField
    /// A value read from a list element or a link (default: `_persisted(from:)`).
    static func _resolved(_ field: PersistedField, _ source: _SourceRef) -> Self?
    /// The error for a stored `value` that `_persisted(from:)` refused
    /// (default: a type mismatch; an enum's: a raw value of no case).
    static func _undecodable(_ field: PersistedField, type: String, property: String) -> DatabaseError
    /// A link's value on an instance recording a key path's reads: a
    /// recording instance of the target (default: nil, no hop).
    static func _recordingHop(from object: Object) -> Self?
}

extension PersistableValue {
    public static func _read(_ access: _ManagedAccess) -> Self { access.managed.read(access.index, as: Self.self) }
    public static func _write(_ value: Self, _ access: _ManagedAccess) { access.managed.write(access.index, value._persistedField) }
    public func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField { _persistedField }
    public static func _resolved(_ field: PersistedField, _ source: _SourceRef) -> Self? { _persisted(from: field) }
    public static func _undecodable(_ field: PersistedField, type: String, property: String) -> DatabaseError {
        .typeMismatch(type: type, property: property, expected: "\(Self.self)", found: field.value.map { "\($0)" } ?? "null")
    }
    public static func _recordingHop(from object: Object) -> Self? { nil }
}

/// A non-optional persistable value (what `Optional` may wrap). The
/// requirements let a wrapped type that is not a plain field (an object:
/// a link) decide how its optional reads and writes.
public protocol PersistablePrimitive: PersistableValue {
    static func _readOptional(_ access: _ManagedAccess) -> Self?
    static func _writeOptional(_ value: Self?, _ access: _ManagedAccess)
    /// What an optional of this type reads as on a recording instance
    /// (`PersistableValue._recordingHop`): an object, a recording instance.
    static func _recordingInstance(from object: Object) -> Self?
}

extension PersistablePrimitive {
    public static func _readOptional(_ access: _ManagedAccess) -> Self? { access.managed.read(access.index, as: Self?.self) }
    public static func _writeOptional(_ value: Self?, _ access: _ManagedAccess) {
        access.managed.write(access.index, value._persistedField)
    }
    public static func _recordingInstance(from object: Object) -> Self? { nil }
}

/// A managed object's property, as the wrapper hands it to its value type.
public struct _ManagedAccess {
    let managed: ManagedObject
    let index: Int

    /// Every property access of a managed object (scalars, links, lists)
    /// starts here: the object must be used on its binding and not belong
    /// to a read its instance's `invalidate()` released.
    init(managed: ManagedObject, index: Int) {
        managed.checkUsable(index)
        self.managed = managed
        self.index = index
    }
}

/// Where a value is being stored: the live instance writing it, the
/// `add` policy for unmanaged objects it links to, and (for lists) the
/// owning object's property.
public struct _StoreContext {
    let core: DatabaseCore
    let update: UpdatePolicy
    /// What the caller is doing, for errors ("add Person", "append to Person.dogs").
    let operation: String
    let owner: ClassInfo?
    let ownerKey: [UInt8]
    var index: Int
    /// `add` with an update policy is replacing a stored object: its list
    /// elements are cleared before the new ones are written.
    var replacing = false
}

/// The source a list element or link is read from.
public struct _SourceRef {
    let source: any ObjectSource
}

/// A property's stored type, as the schema records it.
public struct PersistedType: Sendable {
    package let type: PropertyType
    package let isOptional: Bool
    /// A `List`: `type` and `isOptional` describe the elements.
    package let isList: Bool
    /// The target type's name for links and lists of objects.
    package let objectType: String?
    /// A type no property may have (a list of lists): the schema check says why.
    package let invalid: String?
    /// A `MutableSet`: a list of unique elements.
    package let isSet: Bool
    /// A `Map<String, V>`: a list of keyed entries; `type` and `isOptional` describe the values.
    package let isMap: Bool

    package init(_ type: PropertyType, optional: Bool = false, list: Bool = false,
                 objectType: String? = nil, invalid: String? = nil, set: Bool = false, map: Bool = false) {
        self.type = type
        isOptional = optional
        isList = list
        self.objectType = objectType
        self.invalid = invalid
        isSet = set
        isMap = map
    }
}

/// One property value in its stored form (nil for null).
public struct PersistedField: Sendable {
    package let value: FieldValue?
    package init(_ value: FieldValue?) { self.value = value }
}
