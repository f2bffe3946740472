import FirnCore
import Foundation

/// The object a `where` closure describes: `$0.age` names a stored
/// property through its key path, `$0["age"]` by name (checked when the
/// query is made: an unknown name, or a value of another type, is a typed
/// error that `where` throws). Key paths go through links (`$0.owner.city`)
/// and lists (`$0.dogs.age > 5`: some dog; `$0.dogs.allSatisfy { … }`: every dog).
///
/// ```swift
/// let old = try db.objects(Dog.self).where { $0.age > 3 && $0.name.beginsWith("R") }
/// let some = try db.objects(Dog.self).where { $0["age"] == 7 || $0.name.in(["Rex", "Fido"]) }
/// ```
@dynamicMemberLookup
public struct Query<Root: Object> {
    /// Root's class info and the links and lists that lead to it from the
    /// queried objects (empty for them); a failure when a step named no
    /// link or list, thrown by `where`.
    let state: Result<(info: ClassInfo, path: [QueryStep]), DatabaseError>
    /// Where target types' infos come from (the configuration's).
    let source: any ObjectSource

    init(source: any ObjectSource, state: Result<(info: ClassInfo, path: [QueryStep]), DatabaseError>) {
        self.source = source
        self.state = state
    }

    /// The queried objects themselves.
    init(source: any ObjectSource, info: ClassInfo) {
        self.init(source: source, state: .success((info, [])))
    }

    /// The stored property `keyPath` reads.
    public subscript<Value: PersistableValue>(dynamicMember keyPath: KeyPath<Root, Value>) -> QueryProperty<Value> {
        let (info, path): (ClassInfo, [QueryStep])
        switch state {
        case let .failure(error): return QueryProperty(failure: error)
        case let .success(state): (info, path) = state
        }
        // A key path to a computed property names no stored property (or one of another type): unknown.
        guard let index = info.index(of: keyPath), Self.matches(Value._persistedType, info.schema.properties[index]) else {
            return QueryProperty(failure: .unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath)))
        }
        return QueryProperty(info: info, index: .success(index), path: path)
    }

    /// The object the link `keyPath` reads, whose properties the query can
    /// compare (`$0.owner.city == "Oslo"`). Through a null link every
    /// property reads null: `$0.owner.city == nil` holds for a dog without an owner.
    public subscript<Target: Object>(dynamicMember keyPath: KeyPath<Root, Target?>) -> Query<Target> {
        Query<Target>(source: source, state: step(keyPath, Target.self) { index, target in .link(index, target.schema) })
    }

    /// The objects of the list `keyPath` reads (`$0.dogs.age > 5`: some dog is older than 5).
    public subscript<Target: Object>(dynamicMember keyPath: KeyPath<Root, List<Target>>) -> QueryList<Target> {
        collectionObjects(keyPath, Target.self)
    }

    /// The values of the list `keyPath` reads (`$0.tags.contains("swift")`).
    public subscript<Value: PersistableValue>(dynamicMember keyPath: KeyPath<Root, List<Value>>) -> QueryValues<Value> {
        collectionValues(keyPath, Value.self)
    }

    /// The objects of the list (or set, `Query-Sets.swift`) property `keyPath`.
    func collectionObjects<Collection, Target: Object>(_ keyPath: KeyPath<Root, Collection>, _ target: Target.Type) -> QueryList<Target> {
        QueryList(source: source, state: state.flatMap { (info, path) in
            Self.stepIndex(info, keyPath, isList: true).flatMap { index in
                Result { () throws(DatabaseError) in
                    (path, .list(index), try source.info(Target.self))
                }
            }
        })
    }

    /// The values of the list (or set) property `keyPath`.
    func collectionValues<Collection, Value: PersistableValue>(_ keyPath: KeyPath<Root, Collection>, _ value: Value.Type) -> QueryValues<Value> {
        QueryValues(state: state.flatMap { (info, path) in
            guard let index = info.index(of: keyPath), info.schema.properties[index].isList,
                  info.schema.properties[index].type != .object,
                  Self.matches(Value._persistedType, info.schema.properties[index].element) else {
                return .failure(.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath)))
            }
            return QueryValues<Value>.elementSchema(info, index).map { (path, index, $0) }
        })
    }

    /// The step through the link or list `keyPath`, appended to the path.
    private func step<Value, Target: Object>(
        _ keyPath: KeyPath<Root, Value>, _ target: Target.Type, _ make: (Int, ClassInfo) -> QueryStep
    ) -> Result<(info: ClassInfo, path: [QueryStep]), DatabaseError> {
        state.flatMap { (info, path) in
            Self.stepIndex(info, keyPath, isList: false).flatMap { index in
                Result { () throws(DatabaseError) in
                    let target = try source.info(Target.self)
                    return (target, path + [make(index, target)])
                }
            }
        }
    }

    /// The schema index of the link (or list of objects) `keyPath` reads.
    private static func stepIndex<Value>(_ info: ClassInfo, _ keyPath: KeyPath<Root, Value>, isList: Bool) -> Result<Int, DatabaseError> {
        guard let index = info.index(of: keyPath), info.schema.properties[index].type == .object,
              info.schema.properties[index].isList == isList else {
            return .failure(.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath)))
        }
        return .success(index)
    }

    /// The stored property called `name`; its values are checked against
    /// the property's type when compared.
    public subscript(name: String) -> QueryProperty<AnyQueryValue> {
        switch state {
        case let .failure(error): return QueryProperty(failure: error)
        case let .success((info, path)):
            guard let index = info.schema.properties.firstIndex(where: { $0.name == name }) else {
                return QueryProperty(failure: .unknownProperty(type: info.name, property: name))
            }
            return QueryProperty(info: info, index: .success(index), path: path)
        }
    }

    /// The link that reached this object compared with `object`: `$0.owner
    /// == nil` holds for a dog without an owner, or whose owner was deleted
    /// (the link reads nil then), `$0.owner == alice` for Alice's dogs.
    public static func == (lhs: Query, rhs: Root?) -> QueryPredicate { lhs.linkComparison(rhs, negated: false) }
    public static func != (lhs: Query, rhs: Root?) -> QueryPredicate { lhs.linkComparison(rhs, negated: true) }

    /// The comparison on the object holding the link, inside any list the
    /// path went through (`$0.dogs.owner != nil`: some dog has an owner, as
    /// `$0.dogs.age != 5` is some dog not 5).
    private func linkComparison(_ object: Root?, negated: Bool) -> QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in
            let (info, path) = try state.get()
            guard case let .link(index, target)? = path.last else {
                throw DatabaseError.invalidValue(type: info.name, property: "self", detail: "only an object reached through a link compares with an object")
            }
            var condition: Condition
            if let object {
                guard let managed = object.managed else { throw DatabaseError.unmanagedObject(type: info.name, operation: "compare a link with it") }
                // The key, and an object under it: a deleted object is nil.
                condition = .and(.compare(index, .equal, .link(managed.key)), .link(index, target, .not(.isNull)))
            } else {
                condition = .link(index, target, .isNull)
            }
            if negated { condition = .not(condition) }
            return QueryStep.wrap(condition, in: path.dropLast())
        }
    }

    static func matches(_ type: PersistedType, _ property: PropertySchema) -> Bool {
        type.type == property.type && type.isOptional == property.isOptional && type.isList == property.isList
    }
}

/// The type a compared property belongs to, as errors name it: an object
/// type, or a list of values (whose elements are compared as the one
/// property of an element schema named for the list).
struct QueryOwner {
    let name: String
    let schema: ObjectSchema
}

/// A link or list a query goes through, from the queried objects to the
/// objects whose properties it compares.
enum QueryStep {
    case link(Int, ObjectSchema)
    /// Into a list's objects, or the objects linking here (`QueryCollection`).
    case collection(QueryCollection, ObjectSchema, Condition.Quantifier)
    /// The value at a key of a map property (`Query-Maps.swift`).
    case mapValue(Int, String)

    /// `condition`, on the objects `path` reaches, as a condition on the queried objects.
    static func wrap<Path: BidirectionalCollection<QueryStep>>(_ condition: Condition, in path: Path) -> Condition {
        path.reversed().reduce(condition) { inner, step in
            switch step {
            case let .link(index, schema): return .link(index, schema, inner)
            case let .collection(collection, schema, quantifier): return collection.quantified(quantifier, schema, inner)
            case let .mapValue(index, key): return .mapValue(index, key, inner)
            }
        }
    }
}

/// The objects of a list property (or of a `LinkingObjects` property:
/// the objects linking here) in a query. Comparing one of their
/// properties holds when it holds for some object of the list (Realm's
/// ANY): `$0.dogs.age > 5`. `allSatisfy` asks it of every object (ALL;
/// true for an empty list) and `contains(where:)` of one object at once
/// (`$0.dogs.contains { $0.age > 5 && $0.name == "Rex" }`: one dog both).
@dynamicMemberLookup
public struct QueryList<Element: Object> {
    let source: any ObjectSource
    /// The path to the list's owner, the list (or linking objects), the elements' class info.
    let state: Result<(path: [QueryStep], collection: QueryCollection, target: ClassInfo), DatabaseError>

    /// The list's objects, each reached for some (`.any`) or every (`.all`) element.
    private func elements(_ quantifier: Condition.Quantifier) -> Query<Element> {
        Query(source: source, state: state.map { (path, collection, target) in
            (target, path + [.collection(collection, target.schema, quantifier)])
        })
    }

    public subscript<Value: PersistableValue>(dynamicMember keyPath: KeyPath<Element, Value>) -> QueryProperty<Value> {
        elements(.any)[dynamicMember: keyPath]
    }

    public subscript<Target: Object>(dynamicMember keyPath: KeyPath<Element, Target?>) -> Query<Target> {
        elements(.any)[dynamicMember: keyPath]
    }

    public subscript<Target: Object>(dynamicMember keyPath: KeyPath<Element, List<Target>>) -> QueryList<Target> {
        elements(.any)[dynamicMember: keyPath]
    }

    /// True when every object of the list satisfies `build`'s condition
    /// (and for an empty list).
    public func allSatisfy(_ build: (Query<Element>) -> QueryPredicate) -> QueryPredicate {
        quantified(.all, build)
    }

    /// True when some object of the list satisfies `build`'s condition.
    public func contains(where build: (Query<Element>) -> QueryPredicate) -> QueryPredicate {
        quantified(.any, build)
    }

    /// True when the list has no objects.
    public var isEmpty: QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in
            let (path, collection, target) = try state.get()
            return QueryStep.wrap(.not(collection.quantified(.any, target.schema, .constant(true))), in: path)
        }
    }

    private func quantified(_ quantifier: Condition.Quantifier, _ build: (Query<Element>) -> QueryPredicate) -> QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in
            let (path, collection, target) = try state.get()
            let inner = try build(Query(source: source, info: target)).condition.get()
            return QueryStep.wrap(collection.quantified(quantifier, target.schema, inner), in: path)
        }
    }
}

/// The value type of a property named by string in a query: any stored
/// scalar (or nil), checked against the property when compared.
public enum AnyQueryValue {}

/// One stored property in a query; comparing it makes a `QueryPredicate`.
public struct QueryProperty<Value> {
    /// The type the property belongs to; nil only with a failed index.
    let info: QueryOwner?
    let index: Result<Int, DatabaseError>
    /// The links and lists from the queried objects to the property's object.
    let path: [QueryStep]

    init(info: ClassInfo, index: Result<Int, DatabaseError>, path: [QueryStep]) {
        self.init(owner: QueryOwner(name: info.name, schema: info.schema), index: index, path: path)
    }

    init(owner: QueryOwner, index: Result<Int, DatabaseError>, path: [QueryStep]) {
        self.info = owner
        self.index = index
        self.path = path
    }

    init(failure: DatabaseError) {
        info = nil
        index = .failure(failure)
        path = []
    }

    /// The property, checked to be a scalar: links and lists are reached
    /// through their key paths (`$0.owner.city`, `$0.dogs.age`), not by name.
    func property() throws(DatabaseError) -> (Int, PropertySchema, QueryOwner) {
        let index = try index.get()
        guard let info else { throw DatabaseError.engine(.misuse("a query property without its type")) }
        let property = info.schema.properties[index]
        guard property.type != .object, !property.isList else {
            throw DatabaseError.invalidValue(type: info.name, property: property.name,
                                             detail: "a link or list is queried through its key path ($0.\(property.name).…)")
        }
        return (index, property, info)
    }

    /// `value` as a field of the property; a value of another type (or nil
    /// for a property that is not optional) is `.typeMismatch`.
    func field(_ value: (any PersistableValue)?, _ property: PropertySchema, _ info: QueryOwner) throws(DatabaseError) -> FieldValue? {
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

    /// The condition `build` makes on the property's object, as a condition
    /// on the queried objects (through the path's links and lists).
    func predicate(_ build: () throws(DatabaseError) -> Condition) -> QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in QueryStep.wrap(try build(), in: path) }
    }

    func comparison(_ op: Condition.Comparison, _ value: (any PersistableValue)?) -> QueryPredicate {
        predicate { () throws(DatabaseError) in
            let (index, property, info) = try property()
            let field = try field(value, property, info)
            if op != .equal, op != .notEqual, !Self.isOrdered(property.type) {
                throw DatabaseError.invalidValue(type: info.name, property: property.name,
                                                 detail: "a \(property.type) has no order (use == or !=)")
            }
            return .compare(index, op, field)
        }
    }

    static func isOrdered(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .int8, .int16, .int32, .int64, .double, .float, .string, .date, .decimal: return true
        case .bool, .data, .uuid, .object: return false
        }
    }

    func text(_ op: Condition.TextMatch, _ pattern: String, caseInsensitive: Bool) -> QueryPredicate {
        predicate { () throws(DatabaseError) in
            let (index, property, info) = try property()
            guard property.type == .string else {
                throw DatabaseError.typeMismatch(type: info.name, property: property.name, expected: property.elementDescription, found: "String")
            }
            return .text(index, op, pattern, caseInsensitive: caseInsensitive)
        }
    }

    func oneOf(_ values: [(any PersistableValue)?]) -> QueryPredicate {
        predicate { () throws(DatabaseError) in
            let (index, property, info) = try property()
            var fields: [FieldValue?] = []
            for value in values { fields.append(try field(value, property, info)) }
            return .oneOf(index, fields)
        }
    }
}

/// A condition on the objects of a query, combined with `&&`, `||` and `!`.
/// A mistake made while building it (an unknown property, a value of the
/// wrong type) is kept and thrown by `where`.
public struct QueryPredicate {
    let condition: Result<Condition, DatabaseError>

    init(condition: Result<Condition, DatabaseError>) { self.condition = condition }

    init(_ build: () throws(DatabaseError) -> Condition) {
        do { condition = .success(try build()) } catch { condition = .failure(error) }
    }

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
