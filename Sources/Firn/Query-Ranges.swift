/// Ranges in queries read as Swift's: `(1...5).contains($0.age)`,
/// `(start..<end).contains($0.date)`. Realm spells it
/// `$0.age.contains(1...5)`; we put the range first because on a String
/// property `$0.name.contains(_:)` already means "has this substring", and
/// `("a"..."m").contains($0.name)` cannot be read as that. Null is in no range.
extension ClosedRange where Bound: QueryComparable & PersistablePrimitive {
    /// True when the property lies in the range, bounds included.
    public func contains(_ property: QueryProperty<Bound>) -> QueryPredicate {
        property.comparison(.greaterOrEqual, lowerBound) && property.comparison(.lessOrEqual, upperBound)
    }

    /// The same for an optional property (false where it is null).
    public func contains(_ property: QueryProperty<Bound?>) -> QueryPredicate {
        property.comparison(.greaterOrEqual, lowerBound) && property.comparison(.lessOrEqual, upperBound)
    }
}

extension Range where Bound: QueryComparable & PersistablePrimitive {
    /// True when the property lies in the range: at or above its lower
    /// bound, below its upper bound.
    public func contains(_ property: QueryProperty<Bound>) -> QueryPredicate {
        property.comparison(.greaterOrEqual, lowerBound) && property.comparison(.less, upperBound)
    }

    /// The same for an optional property (false where it is null).
    public func contains(_ property: QueryProperty<Bound?>) -> QueryPredicate {
        property.comparison(.greaterOrEqual, lowerBound) && property.comparison(.less, upperBound)
    }
}
