import FirnCore

/// Narrowing and ordering results. Each returns new results that stay live
/// and lazy: nothing is read until they are used.
extension Results {
    private var resultsInfo: ClassInfo {
        get throws(DatabaseError) { try source.info(Element.self) }
    }

    /// The objects that satisfy `build`'s condition; a second `where` narrows
    /// further. Throws what the condition got wrong: an unknown property,
    /// a value of another type, an operator the type lacks.
    ///
    /// ```swift
    /// let dogs = try db.objects(Dog.self).where { $0.age > 3 && $0.name == "Rex" }
    /// ```
    public func `where`(_ build: (Query<Element>) -> QueryPredicate) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let condition = try build(Query(source: source, info: try resultsInfo)).condition.get()
        var plan = plan ?? QueryPlan()
        plan.condition = plan.condition.map { .and($0, condition) } ?? condition
        return Results(source: source, plan: plan)
    }

    /// These results ordered by the stored property `keyPath` reads (nulls
    /// first when ascending; strings by code point). It replaces an order
    /// given just before; after `distinct` it orders what the distinct kept.
    public func sorted<Value: PersistableValue>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) throws(DatabaseError) -> Results<Element> {
        try sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// These results ordered by the stored property called `name`.
    public func sorted(byKeyPath name: String, ascending: Bool = true) throws(DatabaseError) -> Results<Element> {
        try sorted(by: [SortDescriptor(keyPath: name, ascending: ascending)])
    }

    /// These results ordered by several properties: by the first, objects
    /// equal in it by the second, and so on; objects equal in all of them
    /// keep the order they had (key order, unless a `distinct` came between).
    public func sorted<S: Sequence<SortDescriptor>>(by descriptors: S) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let info = try resultsInfo
        var keys: [QueryPlan.SortKey] = []
        for descriptor in descriptors {
            let index = try scalarIndex(descriptor.property, info, "sorted by")
            keys.append(QueryPlan.SortKey(index: index, ascending: descriptor.ascending))
        }
        var plan = plan ?? QueryPlan()
        plan.sort(keys)
        return Results(source: source, plan: plan)
    }

    /// The first object (in these results' order) of each distinct
    /// combination of the properties' values; null is a value of its own.
    ///
    /// ```swift
    /// let oneOfEachAge = try dogs.sorted(by: \.name).distinct(by: [\.age])
    /// ```
    public func distinct(by keyPaths: [PartialKeyPath<Element>]) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let info = try resultsInfo
        var indexes: [Int] = []
        for keyPath in keyPaths {
            guard let stored = (type(of: keyPath).valueType as? any PersistableValue.Type)?._persistedType else {
                throw DatabaseError.unknownProperty(type: info.name, property: "a key path to \(type(of: keyPath).valueType) that reads no stored property")
            }
            indexes.append(try scalarIndex(.keyPath(keyPath, stored), info, "distinct by"))
        }
        return distinct(indexes)
    }

    /// The same with properties named by string.
    public func distinct<S: Sequence<String>>(by names: S) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let info = try resultsInfo
        var indexes: [Int] = []
        for name in names { indexes.append(try scalarIndex(.name(name), info, "distinct by")) }
        return distinct(indexes)
    }

    private func distinct(_ indexes: [Int]) -> Results<Element> {
        var plan = plan ?? QueryPlan()
        plan.steps.append(.distinct(indexes))
        return Results(source: source, plan: plan)
    }

    /// The schema index of a stored scalar property (not a link or a list).
    private func scalarIndex(_ property: SortDescriptor.Property, _ info: ClassInfo, _ use: String) throws(DatabaseError) -> Int {
        let index: Int
        switch property {
        case let .name(name):
            guard let found = info.schema.properties.firstIndex(where: { $0.name == name }) else {
                throw DatabaseError.unknownProperty(type: info.name, property: name)
            }
            index = found
        case let .keyPath(keyPath, stored):
            guard let keyPath = keyPath as? PartialKeyPath<Element>, let found = info.index(of: keyPath),
                  Query<Element>.matches(stored, info.schema.properties[found]) else {
                throw DatabaseError.unknownProperty(type: info.name, property: "a key path to \(type(of: keyPath).valueType) that reads no stored property")
            }
            index = found
        }
        let schema = info.schema.properties[index]
        guard schema.type != .object, !schema.isList else {
            throw DatabaseError.invalidValue(type: info.name, property: schema.name, detail: "links and lists cannot be \(use)")
        }
        return index
    }
}
