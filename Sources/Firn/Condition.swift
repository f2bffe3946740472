import FirnCore
import Foundation

/// A checked query condition: properties by schema index, values already
/// in their stored form. Evaluated against one object's record.
indirect enum Condition: Sendable {
    enum Comparison: Sendable { case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual }
    enum TextMatch: Sendable { case contains, beginsWith, endsWith }

    case compare(Int, Comparison, FieldValue?)
    case oneOf(Int, [FieldValue?])
    case text(Int, TextMatch, String, caseInsensitive: Bool)
    case and(Condition, Condition)
    case or(Condition, Condition)
    case not(Condition)

    /// An equality on an indexed property that every match satisfies (the
    /// condition itself, or one side of an `&&`): the index can list the
    /// candidates instead of a scan.
    func indexedEquality(_ schema: ObjectSchema) -> (index: Int, value: FieldValue?)? {
        switch self {
        case let .compare(index, .equal, value) where schema.properties[index].isIndexed: return (index, value)
        case let .and(lhs, rhs): return lhs.indexedEquality(schema) ?? rhs.indexedEquality(schema)
        default: return nil
        }
    }

    func matches(_ record: inout RecordFields) throws(FirnError) -> Bool {
        switch self {
        case let .compare(index, comparison, value):
            return Self.compare(try record.value(index), comparison, value)
        case let .oneOf(index, values):
            let stored = try record.value(index)
            return values.contains { Self.compare(stored, .equal, $0) }
        case let .text(index, match, pattern, caseInsensitive):
            guard case let .string(text)? = try record.value(index) else { return false }
            var options: String.CompareOptions = caseInsensitive ? [.caseInsensitive] : [.literal]
            switch match {
            case .contains: break
            case .beginsWith: options.insert(.anchored)
            case .endsWith: options.formUnion([.anchored, .backwards])
            }
            return pattern.isEmpty || text.range(of: pattern, options: options) != nil
        case let .and(lhs, rhs):
            guard try lhs.matches(&record) else { return false }
            return try rhs.matches(&record)
        case let .or(lhs, rhs):
            if try lhs.matches(&record) { return true }
            return try rhs.matches(&record)
        case let .not(operand): return try !operand.matches(&record)
        }
    }

    /// Null equals only null and has no order (every `<` with it is false).
    static func compare(_ stored: FieldValue?, _ comparison: Comparison, _ value: FieldValue?) -> Bool {
        switch comparison {
        case .equal, .notEqual:
            let equal: Bool
            switch (stored, value) {
            case (nil, nil): equal = true
            case let (a?, b?): equal = order(a, b) == 0
            default: equal = false
            }
            return equal == (comparison == .equal)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let stored, let value, let order = order(stored, value) else { return false }
            switch comparison {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
    }

    /// The order of two stored values of one type: numbers by value,
    /// strings by their UTF-8 bytes (code point order, as the index keys
    /// sort, so an index lookup and a scan agree), bytes lexicographically;
    /// nil for values that do not compare (NaN, different types).
    static func order(_ a: FieldValue, _ b: FieldValue) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int? {
            if x < y { return -1 }
            if x > y { return 1 }
            return x == y ? 0 : nil
        }
        func bytes<C: Sequence>(_ x: C, _ y: C) -> Int where C.Element == UInt8 {
            if x.elementsEqual(y) { return 0 }
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        }
        switch (a, b) {
        case let (.int(x), .int(y)): return sign(x, y)
        case let (.double(x), .double(y)), let (.date(x), .date(y)): return sign(x, y)
        case let (.float(x), .float(y)): return sign(x, y)
        case let (.bool(x), .bool(y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case let (.string(x), .string(y)): return bytes(x.utf8, y.utf8)
        case let (.data(x), .data(y)), let (.uuid(x), .uuid(y)), let (.link(x), .link(y)): return bytes(x, y)
        default: return nil
        }
    }
}

/// One record's property values, decoded once each as a query asks for them.
struct RecordFields {
    let bytes: UnsafeRawBufferPointer
    let schema: ObjectSchema
    private var decoded: [FieldValue??]

    init(_ bytes: UnsafeRawBufferPointer, _ schema: ObjectSchema) {
        self.bytes = bytes
        self.schema = schema
        decoded = Array(repeating: nil, count: schema.properties.count)
    }

    /// The property's value; a property without a field reads as it does
    /// on an object (null or the type's default).
    mutating func value(_ index: Int) throws(FirnError) -> FieldValue? {
        if let known = decoded[index] { return known }
        let property = schema.properties[index]
        let value = try ObjectRecord.value(index, as: property.type, in: bytes) ?? property.absentValue
        decoded[index] = .some(value)
        return value
    }
}
