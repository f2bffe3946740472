/// One property of an object type as the schema tree stores it: its name,
/// stored type and flags (docs/FORMAT.md §12.1).
package struct PropertySchema: Sendable, Equatable, CustomStringConvertible {
    package let name: String
    package let type: PropertyType
    package let isOptional: Bool
    package let isPrimaryKey: Bool
    package let isIndexed: Bool

    package init(name: String, type: PropertyType, isOptional: Bool = false,
                 isPrimaryKey: Bool = false, isIndexed: Bool = false) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
    }

    /// Flag bits of the schema record.
    static let optionalFlag: UInt8 = 1
    static let primaryKeyFlag: UInt8 = 2
    static let indexedFlag: UInt8 = 4

    var flags: UInt8 {
        (isOptional ? Self.optionalFlag : 0) | (isPrimaryKey ? Self.primaryKeyFlag : 0)
            | (isIndexed ? Self.indexedFlag : 0)
    }

    package var description: String {
        var text = "\(name): \(type)\(isOptional ? "?" : "")"
        if isPrimaryKey { text += " (primary key)" }
        if isIndexed { text += " (indexed)" }
        return text
    }
}
