/// One object type's schema: the value stored under the type's name in the
/// schema tree `sys.schema` (docs/FORMAT.md §12.1). Its objects live in the
/// tree `obj.<name>`, each list property's elements in `list.<name>.<property>`
/// and each indexed property's index in `idx.<name>.<property>`; a field's
/// tag in an object record is the property's index in `properties`.
///
/// | size | field |
/// |-----:|-------|
/// | 1 | kind: 1 a top-level type, 2 an embedded type (owned by the one link or list element naming it) |
/// | varint | property count `n` |
/// | n × | varint name length, name (UTF-8, non-empty, unique, no "."), u8 type, u8 flags (1 optional, 2 primary key, 4 indexed, 8 list, 16 set: a list of unique elements, 32 map: a list of keyed entries), and for type 13 (object): varint target name length, target name |
///
/// At most one property is the primary key; it is not optional and its type
/// has a key encoding (`PropertyType.canBePrimaryKey`). A link (type 13, not
/// a list) is optional; a list of objects is not. Only non-list properties
/// of an indexable type are indexed.
package struct ObjectSchema: Sendable, Equatable {
    package static let schemaTreeName = "sys.schema"
    package static let objectTreePrefix = "obj."
    package static let listTreePrefix = "list."
    package static let indexTreePrefix = "idx."
    /// The first byte of a schema record: the type's kind (§12.1). An
    /// embedded type's objects are stored as every type's, in its own
    /// `obj.` tree, but each is owned by exactly one link field or list
    /// element (§12.7): the kind is what tells a reader so.
    static let topLevelKind: UInt8 = 1
    static let embeddedKind: UInt8 = 2

    package let name: String
    package let properties: [PropertySchema]
    /// Objects of this type exist only inside their owner (Realm's
    /// `EmbeddedObject`): no primary key, never queried as a type of their own.
    package let isEmbedded: Bool

    /// The tree holding this type's objects.
    package var treeName: String { Self.objectTreePrefix + name }

    /// The tree holding the elements of list property `property` (§12.4).
    package func listTreeName(_ property: PropertySchema) -> String {
        Self.listTreePrefix + name + "." + property.name
    }

    /// The index tree of indexed property `property` (§12.5).
    package func indexTreeName(_ property: PropertySchema) -> String {
        Self.indexTreePrefix + name + "." + property.name
    }

    package var primaryKeyIndex: Int? { properties.firstIndex(where: \.isPrimaryKey) }

    /// A schema, checked like a decoded one: the same rules hold for what
    /// an application declares and for what a file holds.
    package init(name: String, properties: [PropertySchema], isEmbedded: Bool = false) throws(FirnError) {
        self.name = name
        self.properties = properties
        self.isEmbedded = isEmbedded
        try check()
    }

    private func check() throws(FirnError) {
        // A dot in a name would make tree names like `list.A.b.c` ambiguous.
        guard !name.isEmpty, !name.contains(".") else {
            throw ByteScanner.defect("an object type has an empty name or a name with a dot (\"\(name)\")")
        }
        var seen = Set<String>()
        for property in properties {
            guard !property.name.isEmpty, !property.name.contains(".") else {
                throw ByteScanner.defect("type \(name): a property has an empty name or a name with a dot (\"\(property.name)\")")
            }
            guard seen.insert(property.name).inserted else {
                throw ByteScanner.defect("type \(name): property \(property.name) appears twice")
            }
            if let problem = Self.problem(with: property) {
                throw ByteScanner.defect("type \(name): property \(property.name) \(problem)")
            }
        }
        guard properties.filter(\.isPrimaryKey).count <= 1 else {
            throw ByteScanner.defect("type \(name) has more than one primary key")
        }
        // An embedded object is found through its owner, never by a key of its own.
        if isEmbedded, let key = properties.first(where: \.isPrimaryKey) {
            throw ByteScanner.defect("type \(name) is embedded and has a primary key (\(key.name)); embedded objects have generated keys")
        }
    }

    /// What makes one property unstorable, in words, or nil.
    private static func problem(with property: PropertySchema) -> String? {
        if property.isPrimaryKey, !property.type.canBePrimaryKey || property.isOptional || property.isList {
            return "is \(property) (primary keys are Int, Int8…Int64, String or UUID, not optional)"
        }
        if (property.type == .object) != (property.objectType != nil) {
            return "has a target type but is not a link, or is a link without one"
        }
        if let target = property.objectType, target.isEmpty || target.contains(".") {
            return "links to a type with an empty name or a name with a dot"
        }
        if property.type == .object, !property.isList, !property.isOptional {
            return "is a link and must be optional (it reads nil once its target is deleted)"
        }
        if property.type == .object, property.isList, property.isOptional, !property.isMap {
            return "is a list of optional objects (lists of objects hold objects, not nil)"
        }
        if property.isSet, !property.isList {
            return "has the set flag without the list flag (a set is a list of unique elements)"
        }
        if property.isMap, !property.isList || property.isSet {
            return "has the map flag without the list flag or with the set flag (a map is a list of keyed entries)"
        }
        if property.type == .object, property.isMap, !property.isOptional {
            return "is a map of objects and must be optional (a value reads nil once its target is deleted)"
        }
        if property.isIndexed, !property.type.isIndexable || property.isList {
            return "cannot be indexed (indexes hold Bool, Int, Int8…Int64, String, Date and UUID properties, not lists)"
        }
        return nil
    }

    package func encode() -> [UInt8] {
        var out: [UInt8] = [isEmbedded ? Self.embeddedKind : Self.topLevelKind]
        out.appendVarint(UInt64(properties.count))
        for property in properties {
            let name = Array(property.name.utf8)
            out.appendVarint(UInt64(name.count))
            out += name
            out.append(property.type.rawValue)
            out.append(property.flags)
            if let target = property.objectType {
                let targetBytes = Array(target.utf8)
                out.appendVarint(UInt64(targetBytes.count))
                out += targetBytes
            }
        }
        return out
    }

    /// Decodes the schema record of type `name`; every count, length, type
    /// code and flag is checked (`.corrupt` naming the type otherwise).
    package static func decode(name: String, _ bytes: UnsafeRawBufferPointer) throws(FirnError) -> ObjectSchema {
        var scanner = ByteScanner(bytes)
        do throws(FirnError) {
            let kind = try scanner.byte("schema kind")
            guard kind == Self.topLevelKind || kind == Self.embeddedKind else { throw ByteScanner.defect("unknown schema kind \(kind)") }
            // Each property takes at least 4 bytes (length, 1-byte name, type, flags).
            let count = try scanner.count("property count", atMost: scanner.remaining / 4)
            var properties: [PropertySchema] = []
            properties.reserveCapacity(count)
            for index in 0..<count {
                let length = try scanner.count("property \(index) name length", atMost: scanner.remaining)
                let nameBytes = try scanner.slice(length, "property \(index) name")
                guard let propertyName = String(validating: nameBytes, as: UTF8.self) else {
                    throw ByteScanner.defect("property \(index) name is not UTF-8")
                }
                let code = try scanner.byte("property \(propertyName) type")
                guard let type = PropertyType(rawValue: code) else {
                    throw ByteScanner.defect("property \(propertyName) has unknown type \(code)")
                }
                let flags = try scanner.byte("property \(propertyName) flags")
                guard flags & ~PropertySchema.knownFlags == 0 else {
                    throw ByteScanner.defect("property \(propertyName) has unknown flags \(flags)")
                }
                var target: String?
                if type == .object {
                    let targetLength = try scanner.count("property \(propertyName) target name length", atMost: scanner.remaining)
                    guard let text = String(validating: try scanner.slice(targetLength, "property \(propertyName) target name"), as: UTF8.self) else {
                        throw ByteScanner.defect("property \(propertyName) target name is not UTF-8")
                    }
                    target = text
                }
                properties.append(PropertySchema(
                    name: propertyName, type: type, isOptional: flags & PropertySchema.optionalFlag != 0,
                    isPrimaryKey: flags & PropertySchema.primaryKeyFlag != 0,
                    isIndexed: flags & PropertySchema.indexedFlag != 0,
                    isList: flags & PropertySchema.listFlag != 0, objectType: target,
                    isSet: flags & PropertySchema.setFlag != 0, isMap: flags & PropertySchema.mapFlag != 0))
            }
            guard scanner.isAtEnd else { throw ByteScanner.defect("\(scanner.remaining) bytes after the last property") }
            return try ObjectSchema(name: name, properties: properties, isEmbedded: kind == Self.embeddedKind)
        } catch {
            if case let .corrupt(_, _, _, detail) = error, !detail.hasPrefix("schema of ") {
                throw ByteScanner.defect("schema of \(name): \(detail)")
            }
            throw error
        }
    }

    /// The first difference between this schema (the application's) and
    /// `stored` (the file's), in words, or nil when they are the same.
    package func difference(from stored: ObjectSchema) -> (property: String, change: String)? {
        if isEmbedded != stored.isEmbedded {
            return ("", "the type changed from \(stored.isEmbedded ? "embedded" : "top-level") to \(isEmbedded ? "embedded" : "top-level")")
        }
        for (index, property) in properties.enumerated() {
            guard let old = stored.properties.first(where: { $0.name == property.name }) else {
                return (property.name, "property \(property.name) was added")
            }
            if old != property { return (property.name, "property changed from \(old) to \(property)") }
            if stored.properties.firstIndex(of: old) != index {
                return (property.name, "property \(property.name) moved")
            }
        }
        for old in stored.properties where !properties.contains(where: { $0.name == old.name }) {
            return (old.name, "property \(old.name) was removed")
        }
        return nil
    }
}
