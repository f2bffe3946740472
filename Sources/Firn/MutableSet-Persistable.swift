import FirnCore

/// Sets as property values: stored as a list with the set flag (docs/FORMAT.md
/// §12.1, §12.4), so a set property is a list property everywhere the SDK
/// walks lists (deletes, migrations, notifications, descriptions).
extension MutableSet: PersistableValue {
    public static var _persistedType: PersistedType {
        let list = List<Element>._persistedType
        let invalid = list.invalid.map { $0.replacingOccurrences(of: "list of lists (a List", with: "set of lists or sets (a MutableSet") }
        return PersistedType(list.type, optional: list.isOptional, list: true, objectType: list.objectType, invalid: invalid, set: true)
    }

    public static var _persistedDefault: MutableSet<Element> { MutableSet() }

    public var _persistedField: PersistedField { PersistedField(nil) }

    public static func _persisted(from field: PersistedField) -> MutableSet<Element>? { nil }

    public static func _read(_ access: _ManagedAccess) -> MutableSet<Element> { MutableSet(List._read(access)) }

    /// Assigning a set replaces the property's elements (as assigning a list does).
    public static func _write(_ value: MutableSet<Element>, _ access: _ManagedAccess) { List._write(value.list, access) }

    /// Adding this set's object: its elements become the owner's, and this instance a view of them.
    public func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField { try list._stored(context) }
}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the decoded elements (repeated ones once).
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { try insert(try container.decode(Element.self)) }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// The elements, as an array.
    public func encode(to encoder: any Encoder) throws { try list.encode(to: encoder) }
}

extension MutableSet: DescribedList {
    var describedText: String { "MutableSet" + list.describedText.drop(while: { $0 != "<" }) }
}
