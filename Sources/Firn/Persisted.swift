import FirnCore
import Synchronization

/// Every `@Persisted` wrapper ever made gets the next number: the schema is
/// discovered on a prototype instance, where each wrapper's number maps a
/// key path (what the wrapper's accessors receive) to a property.
@usableFromInline let persistedOrdinals = Atomic<Int>(0)

/// A stored property of an `Object`. Unmanaged objects keep the value in
/// the wrapper; managed ones read and write their record in the database
/// (the wrapper's copy is then unused).
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var name = ""
///     @Persisted(indexed: true) var city: String?
/// }
/// ```
@propertyWrapper
public struct Persisted<Value: PersistableValue> {
    @usableFromInline var unmanagedValue: Value
    @usableFromInline let ordinal: Int
    @usableFromInline let isPrimaryKey: Bool
    @usableFromInline let isIndexed: Bool

    // Inlinable: an object read from the database is made with `init()`,
    // which runs these for every property; compiled in the application's
    // module they are specialized, instead of looking up the generic
    // `Persisted<Value>` metadata (a runtime hash lookup) for each wrapper.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool = false, indexed: Bool = false) {
        unmanagedValue = wrappedValue
        ordinal = persistedOrdinals.add(1, ordering: .relaxed).newValue
        isPrimaryKey = primaryKey
        isIndexed = indexed
    }

    /// A property declared without a value starts with its type's default (nil, 0, "").
    @inlinable
    public init(primaryKey: Bool = false, indexed: Bool = false) {
        self.init(wrappedValue: Value._persistedDefault, primaryKey: primaryKey, indexed: indexed)
    }

    @available(*, unavailable, message: "@Persisted is only for properties of Object subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Persisted is only for properties of Object subclasses") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Persisted is only for properties of Object subclasses") }
    }

    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            guard let managed = object.managed else {
                // A query naming this property through a key path reads it
                // on an instance made for that (`PropertyRecorder`).
                if let recorder = object.recorder { recorder.ordinal = object[keyPath: storageKeyPath].ordinal }
                return object[keyPath: storageKeyPath].unmanagedValue
            }
            return Value._read(_ManagedAccess(managed: managed, index: propertyIndex(managed.info, storageKeyPath)))
        }
        set {
            guard let managed = object.managed else {
                object[keyPath: storageKeyPath].unmanagedValue = newValue
                return
            }
            Value._write(newValue, _ManagedAccess(managed: managed, index: propertyIndex(managed.info, storageKeyPath)))
        }
    }

    /// The schema index of the property stored at `keyPath`.
    private static func propertyIndex<EnclosingSelf: Object>(
        _ info: ClassInfo, _ keyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Int {
        if let index = info.knownIndex(keyPath) { return index }
        if let index = info.cachedIndex(keyPath) {
            info.remember(storageKeyPath: keyPath, index)
            return index
        }
        guard let prototype = info.prototype as? EnclosingSelf,
              let index = info.index(ofOrdinal: prototype[keyPath: keyPath].ordinal) else {
            fatalError("Firn: \(EnclosingSelf.self) has a property missing from its schema")
        }
        info.cache(keyPath, index)
        info.remember(storageKeyPath: keyPath, index)
        return index
    }
}

/// What schema discovery reads from each wrapper through `Mirror`.
protocol PersistedProperty {
    var ordinal: Int { get }
    var persistedType: PersistedType { get }
    var isPrimaryKey: Bool { get }
    var isIndexed: Bool { get }
    var field: PersistedField { get }
    /// The value's stored form when its object is added.
    func stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField
    /// The same three for a wrapper of this type at `address` (inside an
    /// object, where `ClassInfo`'s layout says it lies).
    static func _ordinal(at address: UnsafeRawPointer) -> Int
    static func _field(at address: UnsafeRawPointer) -> PersistedField
    static func _stored(at address: UnsafeRawPointer, _ context: _StoreContext) throws(DatabaseError) -> PersistedField
}

extension Persisted: PersistedProperty {
    var persistedType: PersistedType { Value._persistedType }
    var field: PersistedField { unmanagedValue._persistedField }
    func stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField { try unmanagedValue._stored(context) }
    static func _ordinal(at address: UnsafeRawPointer) -> Int { address.assumingMemoryBound(to: Self.self).pointee.ordinal }
    static func _field(at address: UnsafeRawPointer) -> PersistedField { address.assumingMemoryBound(to: Self.self).pointee.field }
    static func _stored(at address: UnsafeRawPointer, _ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        try address.assumingMemoryBound(to: Self.self).pointee.stored(context)
    }
}
