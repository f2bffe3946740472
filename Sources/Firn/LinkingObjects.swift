import FirnCore

/// The objects that link to an object (Realm's inverse relationship):
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var name = ""
///     @Persisted(originProperty: "owner") var dogs: LinkingObjects<Dog>
/// }
/// ```
///
/// `person.dogs` holds every `Dog` whose `owner` (a link, or a list of
/// objects) names this person, in key order. It is computed by a query of
/// the origin type, not stored: nothing in the file records it, adding or
/// removing such a property needs no migration, and it cannot be set.
/// Live and lazy like `Results` (it follows every commit; `observe` and
/// `asResults().changes` report its changes); a frozen object's is frozen. An
/// unmanaged object's is empty.
public struct LinkingObjects<Element: Object>: RandomAccessCollection, @unchecked Sendable {
    /// The origin type's property that links here.
    public let originProperty: String
    /// The query of the origin type; nil for an unmanaged object's.
    let results: Results<Element>?

    init(originProperty: String, results: Results<Element>? = nil) {
        self.originProperty = originProperty
        self.results = results
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int { results?.count ?? 0 }

    public subscript(position: Int) -> Element {
        guard let results else { fatalError("Firn: index \(position) out of range of an unmanaged object's LinkingObjects (empty)") }
        return results[position]
    }

    public func makeIterator() -> LinkingObjectsIterator<Element> { LinkingObjectsIterator(results?.makeIterator()) }

    /// True when these read a fixed version (a frozen object's).
    public var isFrozen: Bool { results?.isFrozen ?? false }

    /// The linking objects as `Results`: queries, sorts, aggregates.
    /// `.unmanagedObject` for an unmanaged object's.
    public func asResults() throws(DatabaseError) -> Results<Element> {
        guard let results else {
            throw DatabaseError.unmanagedObject(type: "LinkingObjects<\(Element.self)>", operation: "query its objects")
        }
        return results
    }

    /// `Results.where` of the linking objects.
    public func `where`(_ build: (Query<Element>) -> QueryPredicate) throws(DatabaseError) -> Results<Element> {
        try asResults().where(build)
    }

    /// `Results.sorted(by:ascending:)` of the linking objects.
    public func sorted<Value: PersistableValue>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) throws(DatabaseError) -> Results<Element> {
        try asResults().sorted(by: keyPath, ascending: ascending)
    }

    /// `Results.observe` of the linking objects: an object linking here,
    /// or no longer, is an insertion or a deletion.
    public func observe(_ block: @escaping @Sendable (ResultsChange<Element>) -> Void) throws(DatabaseError) -> NotificationToken {
        try asResults().observe(block)
    }
}

/// Walks `LinkingObjects` as `Results` walk (empty for an unmanaged object's).
public struct LinkingObjectsIterator<Element: Object>: IteratorProtocol {
    private var results: ResultsIterator<Element>?
    init(_ results: ResultsIterator<Element>?) { self.results = results }
    public mutating func next() -> Element? { results?.next() }
}

/// What the schema discovery asks of a `LinkingObjects` wrapper.
protocol LinkingObjectsProperty {
    var originType: String { get }
    var originProperty: String { get }
}

extension LinkingObjects: LinkingObjectsProperty {
    var originType: String { String(describing: Element.self) }
}

extension Persisted {
    /// A `LinkingObjects` property: the objects of its element type whose
    /// property `originProperty` (a link or a list of objects to this
    /// type) names the object.
    public init<Origin: Object>(originProperty: String) where Value == LinkingObjects<Origin> {
        self.init(wrappedValue: LinkingObjects(originProperty: originProperty))
    }
}

extension LinkingObjects: PersistableValue {
    /// Only `@Persisted(originProperty:)` declares one; anywhere else (a
    /// list of them, a plain `@Persisted`) the schema check refuses it.
    public static var _persistedType: PersistedType {
        PersistedType(.object, objectType: String(describing: Element.self),
                      invalid: "is LinkingObjects, which is declared with @Persisted(originProperty:) only")
    }

    /// No origin: a property declared without `originProperty:` (refused).
    public static var _persistedDefault: LinkingObjects<Element> { LinkingObjects(originProperty: "") }
    public var _persistedField: PersistedField { PersistedField(nil) }
    public static func _persisted(from field: PersistedField) -> LinkingObjects<Element>? { nil }

    /// The query of the origin type for the object `access` names.
    public static func _read(_ access: _ManagedAccess) -> LinkingObjects<Element> {
        let managed = access.managed
        guard let linking = managed.info.linkingProperty(access.index) else {
            fatalError("Firn: \(managed.info.name): property \(access.index) is not a LinkingObjects property")
        }
        do {
            guard try managed.record() != nil else {
                fatalError("Firn: \(DatabaseError.invalidatedObject(type: managed.info.name)) (reading \(linking.name))")
            }
            let origin = try managed.source.info(Element.self)
            let plan = QueryPlan(condition: try linking.condition(origin: origin, target: managed.info.name, key: managed.key))
            return LinkingObjects(originProperty: linking.originProperty, results: Results(source: managed.source, plan: plan))
        } catch {
            fatalError("Firn: \(managed.info.name).\(linking.name): \(error)")
        }
    }

    public static func _write(_ value: LinkingObjects<Element>, _ access: _ManagedAccess) {
        let name = access.managed.info.linkingProperty(access.index)?.name ?? "a LinkingObjects property"
        fatalError("Firn: \(access.managed.info.name).\(name) is computed from the objects that link here and cannot be set")
    }
}

/// A `LinkingObjects` property of a class, as `ClassInfo` records it: not
/// in the stored schema, numbered after the stored properties.
struct LinkingProperty: Sendable {
    let name: String
    let originType: String
    let originProperty: String

    /// The origin's property that links here, checked: a link or a list of
    /// objects of the type `target`; `.invalidSchema` otherwise.
    func originIndex(_ origin: ClassInfo, target: String) throws(DatabaseError) -> Int {
        guard let index = origin.schema.properties.firstIndex(where: { $0.name == originProperty }) else {
            throw DatabaseError.invalidSchema(type: target, detail: "\(name) links from \(originType).\(originProperty), which \(originType) does not store")
        }
        let property = origin.schema.properties[index]
        guard property.type == .object, property.objectType == target else {
            throw DatabaseError.invalidSchema(
                type: target, detail: "\(name) links from \(originType).\(originProperty), which is not a link or a list of \(target) objects")
        }
        return index
    }

    /// The condition on the origin type's records: its link names the
    /// object `key` of type `target`, or its list holds it.
    func condition(origin: ClassInfo, target: String, key: [UInt8]) throws(DatabaseError) -> Condition {
        let index = try originIndex(origin, target: target)
        if origin.schema.properties[index].isList {
            return .values(index, .any, .compare(0, .equal, .link(key)))
        }
        return .compare(index, .equal, .link(key))
    }
}
