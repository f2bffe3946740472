/// One property of an object type as the schema tree stores it: its name,
/// stored type, flags and, for links and lists of objects, the target type
/// (docs/FORMAT.md §12.1).
///
/// A list property's `type` and `isOptional` describe its elements: a
/// `List<String?>` is type String, optional, list; a `List<Dog>` is type
/// Object, list, target `Dog`.
package struct PropertySchema: Sendable, Equatable, CustomStringConvertible {
    package let name: String
    package let type: PropertyType
    package let isOptional: Bool
    package let isPrimaryKey: Bool
    package let isIndexed: Bool
    /// The values are stored in the property's own list tree, not in the record.
    package let isList: Bool
    /// A list whose elements are unique (`MutableSet`): stored as a list,
    /// so every list rule holds, with no two elements of equal bytes.
    package let isSet: Bool
    /// A list of (String key, value) entries in key order (`Map`): `type`
    /// and `isOptional` describe the values (FORMAT.md §12.4, `MapEntry`).
    package let isMap: Bool
    /// The type a link (or a list of objects) points to; nil for other types.
    package let objectType: String?

    package init(name: String, type: PropertyType, isOptional: Bool = false,
                 isPrimaryKey: Bool = false, isIndexed: Bool = false,
                 isList: Bool = false, objectType: String? = nil, isSet: Bool = false, isMap: Bool = false) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.isList = isList
        self.objectType = objectType
        self.isSet = isSet
        self.isMap = isMap
    }

    /// Flag bits of the schema record.
    static let optionalFlag: UInt8 = 1
    static let primaryKeyFlag: UInt8 = 2
    static let indexedFlag: UInt8 = 4
    static let listFlag: UInt8 = 8
    static let setFlag: UInt8 = 16
    static let mapFlag: UInt8 = 32
    static let knownFlags = optionalFlag | primaryKeyFlag | indexedFlag | listFlag | setFlag | mapFlag

    var flags: UInt8 {
        (isOptional ? Self.optionalFlag : 0) | (isPrimaryKey ? Self.primaryKeyFlag : 0)
            | (isIndexed ? Self.indexedFlag : 0) | (isList ? Self.listFlag : 0) | (isSet ? Self.setFlag : 0)
            | (isMap ? Self.mapFlag : 0)
    }

    /// What a record without this property's field reads as (FORMAT.md
    /// §12.2): null when optional, else the type's default (false, 0,
    /// empty, the reference date, the zero UUID); a link reads null. The
    /// SDK reads and indexes such records with it, and `verify` checks an
    /// index entry against it.
    package var absentValue: FieldValue? {
        guard !isOptional else { return nil }
        switch type {
        case .bool: return .bool(false)
        case .int, .int8, .int16, .int32, .int64: return .int(0)
        case .double: return .double(0)
        case .float: return .float(0)
        case .string: return .string("")
        case .data: return .data([])
        case .date: return .date(0)
        case .uuid: return .uuid([UInt8](repeating: 0, count: 16))
        case .decimal: return .decimal(StoredDecimal(isNegative: false, exponent: 0, mantissa: 0))
        case .object: return nil
        }
    }

    /// The element type as Swift spells it: `Int`, `String?`, `Dog`.
    package var elementDescription: String {
        (type == .object ? objectType ?? "Object" : type.description) + (isOptional ? "?" : "")
    }

    /// A list property as Swift declares it: `List<Dog>`, `MutableSet<String>`, `Map<String, Int?>`.
    package var collectionDescription: String {
        isMap ? "Map<String, \(elementDescription)>" : "\(isSet ? "MutableSet" : "List")<\(elementDescription)>"
    }

    package var description: String {
        var text = "\(name): " + (isList ? collectionDescription : elementDescription)
        if isPrimaryKey { text += " (primary key)" }
        if isIndexed { text += " (indexed)" }
        return text
    }
}
