import FirnCore
import Foundation

extension Bool: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.bool) }
    public static var _persistedDefault: Bool { false }
    public var _persistedField: PersistedField { PersistedField(.bool(self)) }
    public static func _persisted(from field: PersistedField) -> Bool? {
        if case let .bool(v)? = field.value { return v }
        return nil
    }
}

/// The integers share one stored form (`.int`); the width is the type's.
public protocol PersistableInteger: PersistablePrimitive, FixedWidthInteger & SignedInteger {}

extension PersistableInteger {
    public static var _persistedDefault: Self { 0 }
    public var _persistedField: PersistedField { PersistedField(.int(Int64(self))) }
    public static func _persisted(from field: PersistedField) -> Self? {
        if case let .int(v)? = field.value { return Self(exactly: v) }
        return nil
    }
}

extension Int: PersistableInteger { public static var _persistedType: PersistedType { PersistedType(.int) } }
extension Int8: PersistableInteger { public static var _persistedType: PersistedType { PersistedType(.int8) } }
extension Int16: PersistableInteger { public static var _persistedType: PersistedType { PersistedType(.int16) } }
extension Int32: PersistableInteger { public static var _persistedType: PersistedType { PersistedType(.int32) } }
extension Int64: PersistableInteger { public static var _persistedType: PersistedType { PersistedType(.int64) } }

extension Double: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.double) }
    public static var _persistedDefault: Double { 0 }
    public var _persistedField: PersistedField { PersistedField(.double(self)) }
    public static func _persisted(from field: PersistedField) -> Double? {
        if case let .double(v)? = field.value { return v }
        return nil
    }
}

extension Float: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.float) }
    public static var _persistedDefault: Float { 0 }
    public var _persistedField: PersistedField { PersistedField(.float(self)) }
    public static func _persisted(from field: PersistedField) -> Float? {
        if case let .float(v)? = field.value { return v }
        return nil
    }
}

extension String: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.string) }
    public static var _persistedDefault: String { "" }
    public var _persistedField: PersistedField { PersistedField(.string(self)) }
    public static func _persisted(from field: PersistedField) -> String? {
        if case let .string(v)? = field.value { return v }
        return nil
    }
}

extension Data: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.data) }
    public static var _persistedDefault: Data { Data() }
    public var _persistedField: PersistedField { PersistedField(.data(Array(self))) }
    public static func _persisted(from field: PersistedField) -> Data? {
        if case let .data(v)? = field.value { return Data(v) }
        return nil
    }
}

extension Date: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.date) }
    public static var _persistedDefault: Date { Date(timeIntervalSinceReferenceDate: 0) }
    public var _persistedField: PersistedField { PersistedField(.date(timeIntervalSinceReferenceDate)) }
    public static func _persisted(from field: PersistedField) -> Date? {
        if case let .date(v)? = field.value { return Date(timeIntervalSinceReferenceDate: v) }
        return nil
    }
}

extension UUID: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.uuid) }
    public static var _persistedDefault: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public var _persistedField: PersistedField {
        PersistedField(.uuid(withUnsafeBytes(of: uuid) { Array($0) }))
    }
    public static func _persisted(from field: PersistedField) -> UUID? {
        guard case let .uuid(v)? = field.value, v.count == 16 else { return nil }
        return UUID(uuid: (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]))
    }
}

extension Optional: PersistableValue where Wrapped: PersistablePrimitive {
    public static var _persistedType: PersistedType {
        let wrapped = Wrapped._persistedType
        return PersistedType(wrapped.type, optional: true, objectType: wrapped.objectType, invalid: wrapped.invalid)
    }
    public static var _persistedDefault: Wrapped? { nil }
    public var _persistedField: PersistedField { map(\._persistedField) ?? PersistedField(nil) }
    public static func _persisted(from field: PersistedField) -> Wrapped?? {
        guard field.value != nil else { return .some(nil) }
        return Wrapped._persisted(from: field).map { .some($0) }
    }
    public static func _read(_ access: _ManagedAccess) -> Wrapped? { Wrapped._readOptional(access) }
    public static func _write(_ value: Wrapped?, _ access: _ManagedAccess) { Wrapped._writeOptional(value, access) }
    public func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        guard let self else { return PersistedField(nil) }
        return try self._stored(context)
    }
    public static func _resolved(_ field: PersistedField, _ source: _SourceRef) -> Wrapped?? {
        guard field.value != nil else { return .some(nil) }
        return Wrapped._resolved(field, source).map { .some($0) }
    }
    public static func _undecodable(_ field: PersistedField, type: String, property: String) -> DatabaseError {
        Wrapped._undecodable(field, type: type, property: property)
    }
    public static func _recordingHop(from object: Object) -> Wrapped?? {
        Wrapped._recordingInstance(from: object).map { .some($0) }
    }
}
