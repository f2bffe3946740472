import FirnCore

/// An enum stored as its raw value: `Int` (or `Int8`…`Int64`) or `String`
/// raw values, as in Realm.
///
/// ```swift
/// enum Status: String, PersistableEnum { case open, done }
/// final class Task: Object {
///     @Persisted var status = Status.open
///     @Persisted var priority: Priority?
/// }
/// let done = try tasks.where { $0.status == .done }
/// ```
///
/// The file stores the raw value with the raw type's code (docs/FORMAT.md
/// §12.2): tools print the raw value, and queries compare raw values
/// (`==`, `!=`, `in`). A property declared without a value starts as the
/// first case. A raw value that names no case (written by a build with more
/// cases, or damaged) is `DatabaseError.unknownEnumValue`: `try
/// task.read(\.status)` throws it; the property's getter, which cannot
/// throw, stops the program with it.
public protocol PersistableEnum: PersistablePrimitive, RawRepresentable, CaseIterable where RawValue: PersistablePrimitive {}

extension PersistableEnum {
    public static var _persistedType: PersistedType {
        let raw = RawValue._persistedType
        switch raw.type {
        case .int, .int8, .int16, .int32, .int64, .string:
            return PersistedType(raw.type)
        default:
            return PersistedType(raw.type, invalid: "is an enum whose raw values are \(RawValue.self) (a PersistableEnum has Int or String raw values)")
        }
    }

    /// The first case: what a property declared without a value holds, and
    /// what a record without the field reads as.
    public static var _persistedDefault: Self {
        guard let first = allCases.first else { fatalError("Firn: \(Self.self) has no cases to be a PersistableEnum's default") }
        return first
    }

    public var _persistedField: PersistedField { rawValue._persistedField }

    public static func _persisted(from field: PersistedField) -> Self? {
        RawValue._persisted(from: field).flatMap(Self.init(rawValue:))
    }

    public static func _undecodable(_ field: PersistedField, type: String, property: String) -> DatabaseError {
        guard let raw = RawValue._persisted(from: field) else {
            return .typeMismatch(type: type, property: property, expected: "\(Self.self)", found: field.value.map { "\($0)" } ?? "null")
        }
        return .unknownEnumValue(type: type, property: property, enumType: "\(Self.self)", rawValue: "\(raw)")
    }
}
