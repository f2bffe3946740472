import FirnCore

/// A value `@Persisted` can store: Bool, Int, Int8…Int64, Double, Float,
/// String, Data, Date, UUID and optionals of each. The underscored
/// requirements are the SDK's; applications do not implement them.
public protocol PersistableValue {
    /// The stored type.
    static var _persistedType: PersistedType { get }
    /// The value a property of this type has when its record has no field.
    static var _persistedDefault: Self { get }
    /// This value as a record field.
    var _persistedField: PersistedField { get }
    /// The value of a field; nil when the field holds another type.
    static func _persisted(from field: PersistedField) -> Self?
}

/// A non-optional persistable value (what `Optional` may wrap).
public protocol PersistablePrimitive: PersistableValue {}

/// A property's stored type, as the schema records it.
public struct PersistedType: Sendable {
    package let type: PropertyType
    package let isOptional: Bool
    package init(_ type: PropertyType, optional: Bool = false) {
        self.type = type
        isOptional = optional
    }
}

/// One property value in its stored form (nil for null).
public struct PersistedField: Sendable {
    package let value: FieldValue?
    package init(_ value: FieldValue?) { self.value = value }
}
