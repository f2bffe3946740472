import FirnCore

/// The values of a list property in a query (`List<String>`, `List<Int?>`):
/// `$0.tags.contains("swift")` holds when some element equals the value
/// (Realm's name); `contains(where:)` and `allSatisfy` take a condition on
/// one element, written on `$0` as on a property (`$0.scores.allSatisfy { $0 >= 50 }`).
public struct QueryValues<Element: PersistableValue> {
    /// The path to the list's owner, the list property, and the element
    /// schema: one property, named for the list, of the element's type.
    let state: Result<(path: [QueryStep], index: Int, element: QueryOwner), DatabaseError>
    /// A map's keys (`Condition.keys`) rather than a list's or map's values.
    var ofKeys = false

    /// True when some element equals `value`.
    public func contains(_ value: Element) -> QueryPredicate {
        quantified(.any) { $0.comparison(.equal, value) }
    }

    /// True when some element satisfies `build`'s condition.
    public func contains(where build: (QueryProperty<Element>) -> QueryPredicate) -> QueryPredicate {
        quantified(.any, build)
    }

    /// True when every element satisfies `build`'s condition (and for an empty list).
    public func allSatisfy(_ build: (QueryProperty<Element>) -> QueryPredicate) -> QueryPredicate {
        quantified(.all, build)
    }

    /// True when the list has no elements.
    public var isEmpty: QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in
            let (path, index, _) = try state.get()
            return QueryStep.wrap(.not(ofKeys ? .keys(index, .any, .constant(true)) : .values(index, .any, .constant(true))), in: path)
        }
    }

    private func quantified(_ quantifier: Condition.Quantifier, _ build: (QueryProperty<Element>) -> QueryPredicate) -> QueryPredicate {
        QueryPredicate { () throws(DatabaseError) in
            let (path, index, element) = try state.get()
            let inner = try build(QueryProperty(owner: element, index: .success(0), path: [])).condition.get()
            return QueryStep.wrap(ofKeys ? .keys(index, quantifier, inner) : .values(index, quantifier, inner), in: path)
        }
    }

    /// The schema an element is compared under: the list's type, as one
    /// property named for the list (so errors name `Person.tags`).
    static func elementSchema(_ info: ClassInfo, _ index: Int) -> Result<QueryOwner, DatabaseError> {
        let list = info.schema.properties[index]
        do {
            let schema = try ObjectSchema(name: info.name, properties: [list.element])
            return .success(QueryOwner(name: info.name, schema: schema))
        } catch {
            return .failure(.engine(error))
        }
    }
}

extension PropertySchema {
    /// A list's element as a property of its own (the list's name and type).
    var element: PropertySchema { PropertySchema(name: name, type: type, isOptional: isOptional) }
}
