/// One object type's schema: the value stored under the type's name in the
/// schema tree `sys.schema` (docs/FORMAT.md §12.1). Its objects live in the
/// tree `obj.<name>`; a field's tag in an object record is the property's
/// index in `properties`.
///
/// | size | field |
/// |-----:|-------|
/// | 1 | format, 1 |
/// | varint | property count `n` |
/// | n × | varint name length, name (UTF-8, non-empty, unique), u8 type, u8 flags (1 optional, 2 primary key, 4 indexed) |
///
/// At most one property is the primary key; it is not optional and its type
/// has a key encoding (`PropertyType.canBePrimaryKey`).
package struct ObjectSchema: Sendable, Equatable {
    package static let schemaTreeName = "sys.schema"
    package static let objectTreePrefix = "obj."
    static let format: UInt8 = 1

    package let name: String
    package let properties: [PropertySchema]

    /// The tree holding this type's objects.
    package var treeName: String { Self.objectTreePrefix + name }

    package var primaryKeyIndex: Int? { properties.firstIndex(where: \.isPrimaryKey) }

    /// A schema, checked like a decoded one: the same rules hold for what
    /// an application declares and for what a file holds.
    package init(name: String, properties: [PropertySchema]) throws(FirnError) {
        self.name = name
        self.properties = properties
        try check()
    }

    private func check() throws(FirnError) {
        guard !name.isEmpty else { throw ByteScanner.defect("an object type has an empty name") }
        var seen = Set<String>()
        for property in properties {
            guard !property.name.isEmpty else {
                throw ByteScanner.defect("type \(name): a property has an empty name")
            }
            guard seen.insert(property.name).inserted else {
                throw ByteScanner.defect("type \(name): property \(property.name) appears twice")
            }
            if property.isPrimaryKey {
                guard property.type.canBePrimaryKey, !property.isOptional else {
                    throw ByteScanner.defect(
                        "type \(name): primary key \(property.name) is \(property) (keys are Int, Int8…Int64, String or UUID, not optional)")
                }
            }
        }
        guard properties.filter(\.isPrimaryKey).count <= 1 else {
            throw ByteScanner.defect("type \(name) has more than one primary key")
        }
    }

    package func encode() -> [UInt8] {
        var out: [UInt8] = [Self.format]
        out.appendVarint(UInt64(properties.count))
        for property in properties {
            let name = Array(property.name.utf8)
            out.appendVarint(UInt64(name.count))
            out += name
            out.append(property.type.rawValue)
            out.append(property.flags)
        }
        return out
    }

    /// Decodes the schema record of type `name`; every count, length, type
    /// code and flag is checked (`.corrupt` naming the type otherwise).
    package static func decode(name: String, _ bytes: UnsafeRawBufferPointer) throws(FirnError) -> ObjectSchema {
        var scanner = ByteScanner(bytes)
        do throws(FirnError) {
            let format = try scanner.byte("schema format")
            guard format == Self.format else { throw ByteScanner.defect("unknown schema format \(format)") }
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
                let known = PropertySchema.optionalFlag | PropertySchema.primaryKeyFlag | PropertySchema.indexedFlag
                guard flags & ~known == 0 else {
                    throw ByteScanner.defect("property \(propertyName) has unknown flags \(flags)")
                }
                properties.append(PropertySchema(
                    name: propertyName, type: type, isOptional: flags & PropertySchema.optionalFlag != 0,
                    isPrimaryKey: flags & PropertySchema.primaryKeyFlag != 0,
                    isIndexed: flags & PropertySchema.indexedFlag != 0))
            }
            guard scanner.isAtEnd else { throw ByteScanner.defect("\(scanner.remaining) bytes after the last property") }
            return try ObjectSchema(name: name, properties: properties)
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
