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
            keys.append(QueryPlan.SortKey(column: try column(descriptor.property, info, "sorted by"), ascending: descriptor.ascending))
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
        var columns: [QueryPlan.Column] = []
        for keyPath in keyPaths {
            guard let stored = (type(of: keyPath).valueType as? any PersistableValue.Type)?._persistedType else {
                throw DatabaseError.unknownProperty(type: info.name, property: "a key path to \(type(of: keyPath).valueType) that reads no stored property")
            }
            columns.append(try column(.keyPath(keyPath, stored), info, "distinct by"))
        }
        return distinct(columns)
    }

    /// The same with properties named by string.
    public func distinct<S: Sequence<String>>(by names: S) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let info = try resultsInfo
        var columns: [QueryPlan.Column] = []
        for name in names { columns.append(try column(.name(name), info, "distinct by")) }
        return distinct(columns)
    }

    private func distinct(_ columns: [QueryPlan.Column]) -> Results<Element> {
        var plan = plan ?? QueryPlan()
        plan.steps.append(.distinct(columns))
        return Results(source: source, plan: plan)
    }

    /// The stored scalar property (not a link or a list) a step reads: by
    /// key path, by name, or by a dotted name through to-one links
    /// (`"owner.name"`, as Realm's key paths).
    private func column(_ property: SortDescriptor.Property, _ info: ClassInfo, _ use: String) throws(DatabaseError) -> QueryPlan.Column {
        var owner = info
        var hops: [(index: Int, target: ObjectSchema)] = []
        let index: Int
        switch property {
        case let .name(name):
            var components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let last = components.removeLast()
            for component in components {
                guard let hop = owner.schema.properties.firstIndex(where: { $0.name == component }) else {
                    throw DatabaseError.unknownProperty(type: owner.name, property: component)
                }
                let link = owner.schema.properties[hop]
                guard link.type == .object, !link.isList, let targetName = link.objectType,
                      let target = source.info(named: targetName) else {
                    throw DatabaseError.invalidValue(type: owner.name, property: component, detail: "only a link is followed in \"\(name)\"")
                }
                hops.append((hop, target.schema))
                owner = target
            }
            guard let found = owner.schema.properties.firstIndex(where: { $0.name == last }) else {
                throw DatabaseError.unknownProperty(type: owner.name, property: last)
            }
            index = found
        case let .keyPath(keyPath, stored):
            // Through a link (`\Dog.owner?.name`): as the dotted name.
            if let keyPath = keyPath as? PartialKeyPath<Element>, let path = info.linkPath(of: keyPath) {
                let column = try column(.name(path), info, use)
                let last = column.hops.last?.target.properties[column.index]
                guard let last, last.type == stored.type, !stored.isList else {
                    throw DatabaseError.unknownProperty(type: info.name, property: "a key path to \(type(of: keyPath).valueType) that reads no stored property")
                }
                return column
            }
            guard let keyPath = keyPath as? PartialKeyPath<Element>, let found = info.index(of: keyPath),
                  Query<Element>.matches(stored, info.schema.properties[found]) else {
                throw DatabaseError.unknownProperty(type: info.name, property: "a key path to \(type(of: keyPath).valueType) that reads no stored property")
            }
            index = found
        }
        let schema = owner.schema.properties[index]
        guard schema.type != .object, !schema.isList else {
            throw DatabaseError.invalidValue(type: owner.name, property: schema.name, detail: "links and lists cannot be \(use)")
        }
        return QueryPlan.Column(hops: hops, index: index)
    }
}
