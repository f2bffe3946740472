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
        let condition = try build(Query(info: try resultsInfo)).condition.get()
        var plan = plan ?? QueryPlan()
        plan.condition = plan.condition.map { .and($0, condition) } ?? condition
        return Results(source: source, plan: plan)
    }

    /// These results ordered by the stored property `keyPath` reads (nulls
    /// first when ascending; strings by code point). It replaces any earlier order.
    public func sorted<Value: PersistableValue>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let info = try resultsInfo
        guard let index = info.index(of: keyPath), Query<Element>.matches(Value._persistedType, info.schema.properties[index]) else {
            throw DatabaseError.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath))
        }
        return try sorted(index, info, ascending: ascending)
    }

    /// These results ordered by the stored property called `name`.
    public func sorted(byKeyPath name: String, ascending: Bool = true) throws(DatabaseError) -> Results<Element> {
        source.checkAccess()
        let info = try resultsInfo
        guard let index = info.schema.properties.firstIndex(where: { $0.name == name }) else {
            throw DatabaseError.unknownProperty(type: info.name, property: name)
        }
        return try sorted(index, info, ascending: ascending)
    }

    private func sorted(_ index: Int, _ info: ClassInfo, ascending: Bool) throws(DatabaseError) -> Results<Element> {
        let property = info.schema.properties[index]
        guard property.type != .object, !property.isList else {
            throw DatabaseError.invalidValue(type: info.name, property: property.name, detail: "links and lists cannot be sorted by")
        }
        var plan = plan ?? QueryPlan()
        plan.sort = [QueryPlan.SortKey(index: index, ascending: ascending)]
        return Results(source: source, plan: plan)
    }
}
