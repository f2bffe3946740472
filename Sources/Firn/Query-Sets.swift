import FirnCore

/// Set properties in queries, as lists are (a `MutableSet` is stored as a
/// list of unique elements, docs/FORMAT.md §12.4): `$0.labels.contains("work")`
/// and `$0.tags.name == "swift"` (some element).
extension Query {
    /// The objects of the set `keyPath` reads (`$0.tags.name == "swift"`: some tag is named swift).
    public subscript<Target: Object>(dynamicMember keyPath: KeyPath<Root, MutableSet<Target>>) -> QueryList<Target> {
        collectionObjects(keyPath, Target.self)
    }

    /// The values of the set `keyPath` reads (`$0.labels.contains("work")`).
    public subscript<Value: PersistableValue>(dynamicMember keyPath: KeyPath<Root, MutableSet<Value>>) -> QueryValues<Value> {
        collectionValues(keyPath, Value.self)
    }
}
