/// The stored type of an object property: one byte in the schema record and
/// in every field of an object record (docs/FORMAT.md §12). Fixed-width
/// types have one exact field length; a field whose length differs is a
/// defect.
package enum PropertyType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case bool = 1
    /// Swift `Int`: stored as 64 bits on every platform.
    case int = 2
    case int8 = 3
    case int16 = 4
    case int32 = 5
    case int64 = 6
    case double = 7
    case float = 8
    case string = 9
    case data = 10
    /// Seconds since 2001-01-01 00:00:00 UTC as an IEEE 754 binary64
    /// (Foundation's reference date, so a `Date` round-trips exactly).
    case date = 11
    case uuid = 12
    /// A link to an object: the field holds the target's object key
    /// (docs/FORMAT.md §12.3); the schema names the target type.
    case object = 13
    /// A decimal number with Foundation's `Decimal` range: 18 bytes
    /// (`StoredDecimal`, docs/FORMAT.md §12.2).
    case decimal = 14

    /// The largest type code: the codes are 1 through this one, without
    /// gaps (a record walk checks a field it skips by range alone).
    @inline(__always) package static var maxTypeCode: UInt8 { 14 }

    /// The only length a field of this type may have, nil for variable-length types.
    package var fixedLength: Int? {
        switch self {
        case .bool, .int8: return 1
        case .int16: return 2
        case .int32, .float: return 4
        case .int, .int64, .double, .date: return 8
        case .uuid: return 16
        case .decimal: return StoredDecimal.length
        case .string, .data, .object: return nil
        }
    }

    /// True for the types a primary key may have (they have an
    /// order-preserving key encoding, `ObjectKey`).
    package var canBePrimaryKey: Bool {
        switch self {
        case .int, .int8, .int16, .int32, .int64, .string, .uuid: return true
        default: return false
        }
    }

    /// True for the types an index tree can hold (docs/FORMAT.md §12.5):
    /// those with an order-preserving index encoding (`IndexKey`).
    package var isIndexable: Bool {
        switch self {
        case .bool, .int, .int8, .int16, .int32, .int64, .string, .date, .uuid: return true
        case .double, .float, .data, .object, .decimal: return false
        }
    }

    package var description: String {
        switch self {
        case .bool: return "Bool"
        case .int: return "Int"
        case .int8: return "Int8"
        case .int16: return "Int16"
        case .int32: return "Int32"
        case .int64: return "Int64"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .data: return "Data"
        case .date: return "Date"
        case .uuid: return "UUID"
        case .object: return "Object"
        case .decimal: return "Decimal"
        }
    }
}
