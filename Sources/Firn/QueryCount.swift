/// How many elements a list has, in a query: `$0.dogs.count > 2`,
/// `$0.tags.count == 0` (Realm's spelling). A null link's lists have none.
public struct QueryCount {
    /// The path to the list's owner and the list (or linking objects).
    let state: Result<(path: [QueryStep], collection: QueryCollection), DatabaseError>

    public static func == (lhs: QueryCount, rhs: Int) -> QueryPredicate { lhs.comparison(.equal, rhs) }
    public static func != (lhs: QueryCount, rhs: Int) -> QueryPredicate { lhs.comparison(.notEqual, rhs) }
    public static func < (lhs: QueryCount, rhs: Int) -> QueryPredicate { lhs.comparison(.less, rhs) }
    public static func <= (lhs: QueryCount, rhs: Int) -> QueryPredicate { lhs.comparison(.lessOrEqual, rhs) }
    public static func > (lhs: QueryCount, rhs: Int) -> QueryPredicate { lhs.comparison(.greater, rhs) }
    public static func >= (lhs: QueryCount, rhs: Int) -> QueryPredicate { lhs.comparison(.greaterOrEqual, rhs) }

    private func comparison(_ op: Condition.Comparison, _ count: Int) -> QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in
            let (path, collection) = try state.get()
            return QueryStep.wrap(collection.count(op, count), in: path)
        }
    }
}

extension QueryList {
    /// The number of objects in the list.
    public var count: QueryCount { QueryCount(state: state.map { ($0.path, $0.collection) }) }
}

extension QueryValues {
    /// The number of values in the list.
    public var count: QueryCount { QueryCount(state: state.map { ($0.path, .list($0.index)) }) }
}
