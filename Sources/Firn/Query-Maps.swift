import FirnCore

/// Map properties in queries: `$0.scores["a"] == 5` (the value at a key),
/// `$0.scores.keys.contains("a")` (some key
/// equals), `$0.scores.values.contains(5)` and the same closures as a
/// list's values take (`$0.scores.values.allSatisfy { $0 > 0 }`). A map is
/// stored as a list of keyed entries (docs/FORMAT.md §12.4): each condition
/// walks the owner's entries, as a list condition does.
extension Query {
    public subscript<Value: PersistableValue>(dynamicMember keyPath: KeyPath<Root, Map<String, Value>>) -> QueryMap<Value> {
        QueryMap(keys: mapKeys(keyPath), values: collectionValues(keyPath, Value.self))
    }

    /// The keys of the map property `keyPath`, as String values.
    func mapKeys<Collection>(_ keyPath: KeyPath<Root, Collection>) -> QueryValues<String> {
        QueryValues(state: state.flatMap { (info, path) in
            guard let index = info.index(of: keyPath), info.schema.properties[index].isMap else {
                return .failure(.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath)))
            }
            do throws(FirnError) {
                let key = PropertySchema(name: info.schema.properties[index].name, type: .string)
                return .success((path, index, QueryOwner(name: info.name, schema: try ObjectSchema(name: info.name, properties: [key]))))
            } catch {
                return .failure(.engine(error))
            }
        }, ofKeys: true)
    }
}

/// A map property in a query: its keys and its values (for a map of
/// scalars), each as a list of values is queried.
public struct QueryMap<Value: PersistableValue> {
    /// The map's keys: `$0.scores.keys.contains("a")`.
    public let keys: QueryValues<String>
    /// The map's values: `$0.scores.values.contains(5)` (maps of scalars).
    public let values: QueryValues<Value>

    /// The value at `key`, compared as a property is (`$0.scores["ann"] == 5`,
    /// `$0.scores["ann"] > 3`); a map without the key reads nil there, so
    /// `$0.scores["ann"] == nil` holds for it (maps of scalars).
    public subscript(key: String) -> QueryProperty<Value> {
        switch values.state {
        case let .success((path, index, element)): return QueryProperty(owner: element, index: .success(0), path: path + [.mapValue(index, key)])
        case let .failure(error): return QueryProperty(failure: error)
        }
    }
}
