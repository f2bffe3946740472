/// A Bool property is a condition by itself, as in Realm: `where { $0.done }`,
/// `where { !$0.done && $0.priority > 2 }`. (A `Bool?` property is not:
/// say `== true` or `== false`, which leave out the nulls.)
extension QueryProperty where Value == Bool {
    /// The condition "the property is true".
    var isTrue: QueryPredicate { comparison(.equal, true) }

    public static prefix func ! (operand: QueryProperty) -> QueryPredicate { operand.comparison(.equal, false) }

    public static func && (lhs: QueryProperty, rhs: QueryPredicate) -> QueryPredicate { lhs.isTrue && rhs }
    public static func && (lhs: QueryPredicate, rhs: QueryProperty) -> QueryPredicate { lhs && rhs.isTrue }
    public static func && (lhs: QueryProperty, rhs: QueryProperty) -> QueryPredicate { lhs.isTrue && rhs.isTrue }
    public static func || (lhs: QueryProperty, rhs: QueryPredicate) -> QueryPredicate { lhs.isTrue || rhs }
    public static func || (lhs: QueryPredicate, rhs: QueryProperty) -> QueryPredicate { lhs || rhs.isTrue }
    public static func || (lhs: QueryProperty, rhs: QueryProperty) -> QueryPredicate { lhs.isTrue || rhs.isTrue }
}

extension Results {
    /// The objects whose Bool property `build` names is true: `where { $0.done }`.
    public func `where`(_ build: (Query<Element>) -> QueryProperty<Bool>) throws(DatabaseError) -> Results<Element> {
        try self.where { build($0).isTrue }
    }
}

extension QueryList {
    /// True when the Bool property `build` names is true for every object of the list.
    public func allSatisfy(_ build: (Query<Element>) -> QueryProperty<Bool>) -> QueryPredicate {
        allSatisfy { build($0).isTrue }
    }

    /// True when the Bool property `build` names is true for some object of the list.
    public func contains(where build: (Query<Element>) -> QueryProperty<Bool>) -> QueryPredicate {
        contains { build($0).isTrue }
    }
}
