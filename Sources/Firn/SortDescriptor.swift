/// One key of a sort: a stored property and a direction. Realm's name and
/// shape; the property is named by its key path (checked by the compiler)
/// or by name.
///
/// ```swift
/// let byAge = try dogs.sorted(by: [SortDescriptor(keyPath: \Dog.age, ascending: false), SortDescriptor(keyPath: "name")])
/// ```
public struct SortDescriptor: @unchecked Sendable {  // key paths are immutable values
    enum Property {
        case name(String)
        case keyPath(AnyKeyPath, PersistedType)
    }

    let property: Property
    public let ascending: Bool

    /// Sorts by the stored property called `keyPath`; a dotted name goes
    /// through to-one links (`"owner.name"`).
    public init(keyPath: String, ascending: Bool = true) {
        property = .name(keyPath)
        self.ascending = ascending
    }

    /// Sorts by the stored property `keyPath` reads.
    public init<Root: Object, Value: PersistableValue>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        property = .keyPath(keyPath, Value._persistedType)
        self.ascending = ascending
    }

    private init(property: Property, ascending: Bool) {
        self.property = property
        self.ascending = ascending
    }

    /// The same key in the other direction.
    public func reversed() -> SortDescriptor { SortDescriptor(property: property, ascending: !ascending) }
}
