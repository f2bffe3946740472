import FirnCore
import Synchronization

/// Wrappers made while an instance is being numbered get the next number:
/// the schema is discovered on a prototype instance, where each wrapper's
/// number matches what `Mirror` finds to where the runtime's field list
/// says a wrapper lies (`ClassInfo.numberedInstance`).
@usableFromInline let persistedOrdinals = Atomic<Int>(0)
/// How many threads are making a numbered instance now. Every other
/// wrapper (each object read from a database is made with `init()`) gets 0
/// after one relaxed load of a word nobody writes meanwhile: a shared
/// counter bumped for every wrapper made bounced its cache line between
/// threads reading frozen objects at once.
@usableFromInline let persistedNumbering = Atomic<Int>(0)

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
        // Another thread numbering meanwhile only spends numbers here:
        // they stay unique within the instance being numbered.
        ordinal = persistedNumbering.load(ordering: .relaxed) > 0 ? persistedOrdinals.add(1, ordering: .relaxed).newValue : 0
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

    // The property is named by where its wrapper lies in the object, not
    // by the key paths: inlined into the class's accessor, the projection
    // through `storageKeyPath` folds into a plain field address and no key
    // path object is made at run time. Passing the key paths to code out of
    // line made two of them per read (`swift_getKeyPath`), each a retain
    // and a release of one object shared by every thread: threads reading
    // frozen objects at once bounced its reference count between them.
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            let offset = _offset(of: &object[keyPath: storageKeyPath], in: object)
            if let access = object._managedAccess(wrapperOffset: offset) { return Value._read(access) }
            object._noteUnmanagedRead(wrapperOffset: offset)
            if object._isRecordingKeyPath, let hop = Value._recordingHop(from: object) { return hop }
            return object[keyPath: storageKeyPath].unmanagedValue
        }
        set {
            let offset = _offset(of: &object[keyPath: storageKeyPath], in: object)
            if let access = object._managedAccess(wrapperOffset: offset) {
                Value._write(newValue, access)
                return
            }
            object[keyPath: storageKeyPath].unmanagedValue = newValue
        }
    }

    /// The byte offset of `wrapper` (a stored property of `object`) from
    /// the start of the object.
    @inlinable @inline(__always)
    static func _offset(of wrapper: inout Persisted<Value>, in object: Object) -> Int {
        withUnsafeMutablePointer(to: &wrapper) { pointer in
            UnsafeRawPointer(pointer) - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        }
    }
}

/// What schema discovery reads from each wrapper through `Mirror`.
protocol PersistedProperty {
    var ordinal: Int { get }
    var persistedType: PersistedType { get }
    var isPrimaryKey: Bool { get }
    var isIndexed: Bool { get }
    var field: PersistedField { get }
    /// The unmanaged value, for a description.
    var unmanagedAny: Any { get }
    /// Set for a `LinkingObjects` property declared with its origin.
    var linking: (any LinkingObjectsProperty)? { get }
    /// The value's stored form when its object is added.
    func stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField
    /// The same three for a wrapper of this type at `address` (inside an
    /// object, where `ClassInfo`'s layout says it lies).
    static func _ordinal(at address: UnsafeRawPointer) -> Int
    static func _field(at address: UnsafeRawPointer) -> PersistedField
    static func _stored(at address: UnsafeRawPointer, _ context: _StoreContext) throws(DatabaseError) -> PersistedField
    /// Decodes property `index` of `managed`'s record as this wrapper's
    /// value type, throwing what the getter would stop the program with.
    static func _checkStored(_ managed: ManagedObject, _ index: Int) throws(DatabaseError)
    /// Property `index` of `object` (whose wrapper lies `offset` bytes in),
    /// read as its getter reads it, throwing where the getter would stop
    /// the program (`Encodable` objects).
    static func _value(of object: Object, index: Int, at offset: Int) throws(DatabaseError) -> Any
}

extension Persisted: PersistedProperty {
    var persistedType: PersistedType { Value._persistedType }
    var field: PersistedField { unmanagedValue._persistedField }
    var unmanagedAny: Any { unmanagedValue }
    var linking: (any LinkingObjectsProperty)? {
        guard let linking = unmanagedValue as? any LinkingObjectsProperty, !linking.originProperty.isEmpty else { return nil }
        return linking
    }
    func stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField { try unmanagedValue._stored(context) }
    static func _ordinal(at address: UnsafeRawPointer) -> Int { address.assumingMemoryBound(to: Self.self).pointee.ordinal }
    static func _checkStored(_ managed: ManagedObject, _ index: Int) throws(DatabaseError) {
        _ = try managed.checkedRead(index, as: Value.self)
    }
    static func _value(of object: Object, index: Int, at offset: Int) throws(DatabaseError) -> Any {
        guard let managed = object.managed else {
            return withExtendedLifetime(object) {
                (UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset).assumingMemoryBound(to: Self.self).pointee.unmanagedValue
            }
        }
        try managed.info.checkStored(managed, index)
        return Value._read(_ManagedAccess(managed: managed, index: index))
    }
    static func _field(at address: UnsafeRawPointer) -> PersistedField { address.assumingMemoryBound(to: Self.self).pointee.field }
    static func _stored(at address: UnsafeRawPointer, _ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        try address.assumingMemoryBound(to: Self.self).pointee.stored(context)
    }
}
