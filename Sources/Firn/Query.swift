import FirnCore
import Foundation

/// The object a `where` closure describes: `$0.age` names a stored
/// property through its key path, `$0["age"]` by name (checked when the
/// query is made: an unknown name, or a value of another type, is a typed
/// error that `where` throws).
///
/// ```swift
/// let old = try db.objects(Dog.self).where { $0.age > 3 && $0.name.beginsWith("R") }
/// let some = try db.objects(Dog.self).where { $0["age"] == 7 || $0.name.in(["Rex", "Fido"]) }
/// ```
@dynamicMemberLookup
public struct Query<Root: Object> {
    let info: ClassInfo

    /// The stored property `keyPath` reads.
    public subscript<Value: PersistableValue>(dynamicMember keyPath: KeyPath<Root, Value>) -> QueryProperty<Value> {
        // A key path to a computed property, or through a link, names no
        // stored property (or one of another type): unknown.
        guard let index = info.index(of: keyPath), Self.matches(Value._persistedType, info.schema.properties[index]) else {
            return QueryProperty(info: info, index: .failure(.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath))))
        }
        return QueryProperty(info: info, index: .success(index))
    }

    /// The stored property called `name`; its values are checked against
    /// the property's type when compared.
    public subscript(name: String) -> QueryProperty<AnyQueryValue> {
        guard let index = info.schema.properties.firstIndex(where: { $0.name == name }) else {
            return QueryProperty(info: info, index: .failure(.unknownProperty(type: info.name, property: name)))
        }
        return QueryProperty(info: info, index: .success(index))
    }

    static func matches(_ type: PersistedType, _ property: PropertySchema) -> Bool {
        type.type == property.type && type.isOptional == property.isOptional && type.isList == property.isList
    }
}

/// The value type of a property named by string in a query: any stored
/// scalar (or nil), checked against the property when compared.
public enum AnyQueryValue {}

/// One stored property in a query; comparing it makes a `QueryPredicate`.
public struct QueryProperty<Value> {
    let info: ClassInfo
    let index: Result<Int, DatabaseError>

    /// The property, checked to be a scalar (queries on links and lists come later).
    func property() throws(DatabaseError) -> (Int, PropertySchema) {
        let index = try index.get()
        let property = info.schema.properties[index]
        guard property.type != .object, !property.isList else {
            throw DatabaseError.invalidValue(type: info.name, property: property.name, detail: "links and lists cannot be queried yet")
        }
        return (index, property)
    }

    /// `value` as a field of the property; a value of another type (or nil
    /// for a property that is not optional) is `.typeMismatch`.
    func field(_ value: (any PersistableValue)?, _ property: PropertySchema) throws(DatabaseError) -> FieldValue? {
        // An Optional holding nil arrives wrapped in a non-nil existential.
        guard let value, let field = value._persistedField.value else {
            guard property.isOptional else {
                throw DatabaseError.typeMismatch(type: info.name, property: property.name, expected: property.elementDescription, found: "nil")
            }
            return nil
        }
        let stored = Self.persistedType(of: value)
        let sameFamily = stored.type == property.type || (Self.isInteger(stored.type) && Self.isInteger(property.type))
        guard sameFamily, !stored.isList, stored.type != .object else {
            throw DatabaseError.typeMismatch(type: info.name, property: property.name, expected: property.elementDescription,
                                             found: "\(type(of: value))")
        }
        return field
    }

    private static func persistedType<T: PersistableValue>(of value: T) -> PersistedType { T._persistedType }

    static func isInteger(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .int8, .int16, .int32, .int64: return true
        default: return false
        }
    }

    func predicate(_ build: () throws(DatabaseError) -> Condition) -> QueryPredicate {
        do { return QueryPredicate(condition: .success(try build())) } catch { return QueryPredicate(condition: .failure(error)) }
    }

    func comparison(_ op: Condition.Comparison, _ value: (any PersistableValue)?) -> QueryPredicate {
        predicate { () throws(DatabaseError) in
            let (index, property) = try property()
            let field = try field(value, property)
            if op != .equal, op != .notEqual, !Self.isOrdered(property.type) {
                throw DatabaseError.invalidValue(type: info.name, property: property.name,
                                                 detail: "a \(property.type) has no order (use == or !=)")
            }
            return .compare(index, op, field)
        }
    }

    static func isOrdered(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .int8, .int16, .int32, .int64, .double, .float, .string, .date: return true
        case .bool, .data, .uuid, .object: return false
        }
    }

    func text(_ op: Condition.TextMatch, _ pattern: String, caseInsensitive: Bool) -> QueryPredicate {
        predicate { () throws(DatabaseError) in
            let (index, property) = try property()
            guard property.type == .string else {
                throw DatabaseError.typeMismatch(type: info.name, property: property.name, expected: property.elementDescription, found: "String")
            }
            return .text(index, op, pattern, caseInsensitive: caseInsensitive)
        }
    }

    func oneOf(_ values: [(any PersistableValue)?]) -> QueryPredicate {
        predicate { () throws(DatabaseError) in
            let (index, property) = try property()
            var fields: [FieldValue?] = []
            for value in values { fields.append(try field(value, property)) }
            return .oneOf(index, fields)
        }
    }
}

/// A condition on the objects of a query, combined with `&&`, `||` and `!`.
/// A mistake made while building it (an unknown property, a value of the
/// wrong type) is kept and thrown by `where`.
public struct QueryPredicate {
    let condition: Result<Condition, DatabaseError>

    public static func && (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        QueryPredicate(condition: lhs.condition.flatMap { l in rhs.condition.map { .and(l, $0) } })
    }

    public static func || (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        QueryPredicate(condition: lhs.condition.flatMap { l in rhs.condition.map { .or(l, $0) } })
    }

    public static prefix func ! (operand: QueryPredicate) -> QueryPredicate {
        QueryPredicate(condition: operand.condition.map { .not($0) })
    }
}

// MARK: comparisons of key-path properties (types checked by the compiler)

extension QueryProperty where Value: PersistableValue {
    public static func == (lhs: QueryProperty, rhs: Value) -> QueryPredicate { lhs.comparison(.equal, rhs) }
    public static func != (lhs: QueryProperty, rhs: Value) -> QueryPredicate { lhs.comparison(.notEqual, rhs) }

    /// True when the property equals one of `values`.
    public func `in`(_ values: [Value]) -> QueryPredicate { oneOf(values.map { $0 }) }
}

/// The types whose properties have an order in queries (`<`, `>`, …).
public protocol QueryComparable: PersistableValue {}
extension Int: QueryComparable {}
extension Int8: QueryComparable {}
extension Int16: QueryComparable {}
extension Int32: QueryComparable {}
extension Int64: QueryComparable {}
extension Double: QueryComparable {}
extension Float: QueryComparable {}
extension String: QueryComparable {}
extension Date: QueryComparable {}
extension Optional: QueryComparable where Wrapped: QueryComparable & PersistablePrimitive {}

extension QueryProperty where Value: QueryComparable {
    public static func < (lhs: QueryProperty, rhs: Value) -> QueryPredicate { lhs.comparison(.less, rhs) }
    public static func <= (lhs: QueryProperty, rhs: Value) -> QueryPredicate { lhs.comparison(.lessOrEqual, rhs) }
    public static func > (lhs: QueryProperty, rhs: Value) -> QueryPredicate { lhs.comparison(.greater, rhs) }
    public static func >= (lhs: QueryProperty, rhs: Value) -> QueryPredicate { lhs.comparison(.greaterOrEqual, rhs) }
}

/// String and String? properties.
public protocol QueryText {}
extension String: QueryText {}
extension Optional: QueryText where Wrapped == String {}

extension QueryProperty where Value: QueryText {
    public func contains(_ text: String, caseInsensitive: Bool = false) -> QueryPredicate {
        self.text(.contains, text, caseInsensitive: caseInsensitive)
    }

    public func beginsWith(_ text: String, caseInsensitive: Bool = false) -> QueryPredicate {
        self.text(.beginsWith, text, caseInsensitive: caseInsensitive)
    }

    public func endsWith(_ text: String, caseInsensitive: Bool = false) -> QueryPredicate {
        self.text(.endsWith, text, caseInsensitive: caseInsensitive)
    }
}

// MARK: comparisons of properties named by string (types checked when made)

extension QueryProperty where Value == AnyQueryValue {
    public static func == (lhs: QueryProperty, rhs: (any PersistableValue)?) -> QueryPredicate { lhs.comparison(.equal, rhs) }
    public static func != (lhs: QueryProperty, rhs: (any PersistableValue)?) -> QueryPredicate { lhs.comparison(.notEqual, rhs) }
    public static func < (lhs: QueryProperty, rhs: any PersistableValue) -> QueryPredicate { lhs.comparison(.less, rhs) }
    public static func <= (lhs: QueryProperty, rhs: any PersistableValue) -> QueryPredicate { lhs.comparison(.lessOrEqual, rhs) }
    public static func > (lhs: QueryProperty, rhs: any PersistableValue) -> QueryPredicate { lhs.comparison(.greater, rhs) }
    public static func >= (lhs: QueryProperty, rhs: any PersistableValue) -> QueryPredicate { lhs.comparison(.greaterOrEqual, rhs) }

    public func `in`(_ values: [(any PersistableValue)?]) -> QueryPredicate { oneOf(values) }
}

/// A property named by string takes the text operators too (`contains`,
/// `beginsWith`, `endsWith`); its type is checked when the predicate is made.
extension AnyQueryValue: QueryText {}
