import FirnCore
/// `firn dump --objects`: the objects of a readable version, decoded with the
/// schema stored in the file (docs/FORMAT.md §12) — every property, links as
/// their target's key, lists as arrays — streamed one object at a time so
/// memory does not grow with the file.
package enum ObjectDump {
    package struct Options: Sendable {
        package var path: String
        package var version: UInt64?
        /// Only this type; an unknown name is a usage error listing the stored ones.
        package var type: String?
        /// At most this many objects per type (in key order).
        package var limit: Int?
        package init(path: String) { self.path = path }
    }

    /// One property's value as the SDK would read it: a missing field reads
    /// as null (optional) or its type's default; a link whose target was
    /// deleted reads as null.
    package indirect enum Value: Sendable, Equatable {
        case null
        /// A stored value as FirnCore decodes it; never a `FieldValue.link`
        /// (a link is `.link`, named by its target's key).
        case field(FieldValue)
        /// The generated key of an object whose type has no primary key.
        case generatedID(UInt64)
        /// A link or a list element naming an object: its type and key (the
        /// primary key's value, or `.generatedID`).
        case link(type: String, key: Value)
        case list([Value])
        /// A map's entries (§12.4), in key order.
        case map([MapItem])
    }

    /// One entry of a map property.
    package struct MapItem: Sendable, Equatable {
        package var key: String
        package var value: Value
    }


    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: Value
    }

    package struct Object: Sendable, Equatable {
        package var type: String
        /// The object's key: its primary key's value, or `.generatedID`.
        package var key: Value
        /// Every property of the stored schema, in schema order.
        package var fields: [Field]
    }

    package struct Summary: Codable, Sendable {
        package var path: String
        package var version: UInt64
        package var types: Int
        package var objects: UInt64
        package var pinned: Bool
        package var note: String?
    }

    /// The objects `run` hands out, kept: for a short listing (a `limit`).
    package struct Listing: Sendable {
        package struct Typed: Sendable {
            package var type: StoredType
            package var objects: [Object]
        }
        package var types: [Typed]
        package var summary: Summary
    }

    /// The objects of `options`, type by type, in memory.
    package static func list(_ options: Options) throws -> Listing {
        var types: [Listing.Typed] = []
        let summary = try run(options, type: { types.append(Listing.Typed(type: $0, objects: [])) },
                              object: { types[types.count - 1].objects.append($0) })
        return Listing(types: types, summary: summary)
    }

    /// Calls `type` once per stored type (all of them, or `options.type`),
    /// then `object` for each of its objects in key order.
    package static func run(
        _ options: Options, type: (StoredType) throws -> Void, object: (Object) throws -> Void
    ) throws -> Summary {
        let access = try ReadAccess.open(options.path, version: options.version, label: "firn dump")
        defer { access.close() }
        let (types, count, _) = try decode(access.snapshot, only: options.type, limit: options.limit, path: options.path,
                                        type: type, object: object)
        return Summary(path: options.path, version: access.snapshot.version, types: types, objects: count,
                       pinned: access.pinned, note: access.note)
    }

    /// Decodes the objects of `snapshot` (every type, or `only`; at most
    /// `limit` per type) under the stored schema, as `dump --objects` and
    /// `verify`'s object-layer check read them: returns the types and
    /// objects decoded and the stored schemas, or throws the first defect (65).
    static func decode(
        _ snapshot: Snapshot, only: String?, limit: Int?, path: String,
        type: (StoredType) throws -> Void, object: (Object) throws -> Void
    ) throws -> (types: Int, objects: UInt64, schemas: [ObjectSchema]) {
        let schemas = try StoredSchema.read(snapshot)
        var selected = schemas
        if let wanted = only {
            selected = schemas.filter { $0.name == wanted }
            guard !selected.isEmpty else {
                let known = schemas.isEmpty ? "it stores no object types" : "its types are " + schemas.map(\.name).joined(separator: ", ")
                throw FirnError.invalidArgument("\(path): no object type \"\(wanted)\" in version \(snapshot.version); \(known)")
            }
        }
        // The shapes of the trees walked are checked first (branches only),
        // so a hostile file cannot make a walk repeat or loop.
        var visited = Set<UInt64>()
        for schema in selected {
            let names = [schema.treeName] + schema.properties.filter(\.isList).map { schema.listTreeName($0) }
            for name in names {
                guard let tree = try snapshot.tree(name) else { continue }
                try snapshot.walkPages(root: tree.entry.root, tree: name, depth: .branches, visited: &visited) { (_) throws(FirnError) in }
            }
        }
        let reader = try Reader(snapshot: snapshot, schemas: schemas)
        var count: UInt64 = 0
        for schema in selected {
            try type(try StoredSchema.types(snapshot, [schema])[0])
            guard let tree = try snapshot.tree(schema.treeName) else { continue }
            let cursor = tree.cursor()
            try cursor.first()
            var shown = 0
            while cursor.isValid, shown < limit ?? Int.max {
                guard let key = try cursor.key, let record = try cursor.value else { break }
                try object(try reader.object(schema, key: key, record: record))
                shown += 1
                count += 1
                try cursor.next()
            }
        }
        return (selected.count, count, schemas)
    }

    /// Decodes records of one version: the trees it needs, opened once.
    struct Reader {
        let snapshot: Snapshot
        let schemas: [String: ObjectSchema]
        private let objectTrees: [String: TreeReader]
        private let listTrees: [String: TreeReader]

        init(snapshot: Snapshot, schemas: [ObjectSchema]) throws(FirnError) {
            self.snapshot = snapshot
            var byName: [String: ObjectSchema] = [:]
            var objectTrees: [String: TreeReader] = [:]
            var listTrees: [String: TreeReader] = [:]
            for schema in schemas {
                byName[schema.name] = schema
                objectTrees[schema.name] = try snapshot.tree(schema.treeName)
                for property in schema.properties where property.isList {
                    let name = schema.listTreeName(property)
                    listTrees[name] = try snapshot.tree(name)
                }
            }
            self.schemas = byName
            self.objectTrees = objectTrees
            self.listTrees = listTrees
        }

        func object(_ schema: ObjectSchema, key: [UInt8], record: [UInt8]) throws(FirnError) -> Object {
            let place = "\(schema.treeName) key \(ByteText.short(key))"
            do throws(FirnError) {
                var values = schema.properties.map(Self.absent)
                try withBytes(record) { (bytes) throws(FirnError) in
                    try ObjectRecord.forEachField(bytes) { (field) throws(FirnError) in
                        guard field.tag < schema.properties.count else {
                            throw ByteScanner.defect("field tag \(field.tag) names no property (\(schema.name) has \(schema.properties.count))")
                        }
                        let property = schema.properties[field.tag]
                        guard !property.isList else {
                            throw ByteScanner.defect("list property \(property.name) has a field in the record")
                        }
                        guard let stored = field.type else { return true }
                        guard stored == property.type else {
                            throw ByteScanner.defect("property \(property.name) holds a \(stored), the schema says \(property.type)")
                        }
                        values[field.tag] = try value(try FieldValue.decode(field.bytes, as: stored), of: property, checkTarget: true)
                        return true
                    }
                }
                for (index, property) in schema.properties.enumerated() where property.isList {
                    let elements = try list(schema, property, owner: key)
                    values[index] = property.isMap ? .map(elements.map { MapItem(key: $0.key ?? "", value: $0.value) }) : .list(elements.map(\.value))
                }
                let fields = zip(schema.properties, values).map { Field(name: $0.name, value: $1) }
                let objectKey = try keyValue(schema, key)
                // FORMAT.md 12.3: the primary key field and the key agree.
                if let index = schema.primaryKeyIndex, values[index] != objectKey {
                    throw ByteScanner.defect("the primary key \(schema.properties[index].name) holds \(values[index]), the object's key is \(objectKey)")
                }
                return Object(type: schema.name, key: objectKey, fields: fields)
            } catch {
                throw StoredSchema.located(error, snapshot, in: place)
            }
        }

        /// What a property without a field reads as (§12.2,
        /// `PropertySchema.absentValue`).
        static func absent(_ property: PropertySchema) -> Value {
            if property.isList { return property.isMap ? .map([]) : .list([]) }
            return property.absentValue.flatMap(plain) ?? .null
        }

        /// A field's value, but a link's (which needs its target).
        static func plain(_ field: FieldValue) -> Value? {
            if case .link = field { return nil }
            return .field(field)
        }

        /// A decoded field as a value; a link names its target by key, or
        /// reads null when `checkTarget` and the target is gone.
        private func value(_ field: FieldValue, of property: PropertySchema, checkTarget: Bool) throws(FirnError) -> Value {
            guard case let .link(key) = field else { return Self.plain(field) ?? .null }
            guard let targetName = property.objectType, let target = schemas[targetName] else {
                throw ByteScanner.defect("property \(property.name) is a link without a stored target type")
            }
            if checkTarget {
                guard let tree = objectTrees[targetName], try tree.get(key) != nil else { return .null }
            }
            do {
                return .link(type: targetName, key: try keyValue(target, key))
            } catch {
                throw ByteScanner.defect("property \(property.name): \(Self.detail(error))")
            }
        }

        /// An object's key as a value: its primary key, or its generated id.
        private func keyValue(_ schema: ObjectSchema, _ key: [UInt8]) throws(FirnError) -> Value {
            try withBytes(key) { (bytes) throws(FirnError) -> Value in
                if let index = schema.primaryKeyIndex {
                    return try value(try ObjectKey.decode(bytes, as: schema.properties[index].type),
                                     of: schema.properties[index], checkTarget: false)
                }
                guard let id = ObjectKey.generatedID(bytes) else {
                    throw ByteScanner.defect("a generated \(schema.name) key of \(bytes.count) bytes (8 expected)")
                }
                return .generatedID(id)
            }
        }

        /// The elements of `owner`'s list `property`, in position order, each
        /// with its key for a map; positions must be exactly 0 ..< count, a
        /// map's keys increase (§12.4).
        private func list(_ schema: ObjectSchema, _ property: PropertySchema, owner: [UInt8]) throws(FirnError) -> [(key: String?, value: Value)] {
            let treeName = schema.listTreeName(property)
            guard let tree = listTrees[treeName] else { return [] }
            let prefix = ListKey.prefix(owner)
            let cursor = tree.cursor()
            try cursor.seek(prefix)
            var elements: [(key: String?, value: Value)] = []
            var seen = Set<[UInt8]>()
            var previousKey: [UInt8]?
            while cursor.isValid {
                guard let key = try cursor.key, key.starts(with: prefix) else { break }
                let position = key.withUnsafeBytes { ListKey.position($0, prefix: prefix) }
                guard position == elements.count else {
                    throw ByteScanner.defect("\(treeName): element \(ByteText.short(key)) is not at position \(elements.count) of its list")
                }
                guard let bytes = try cursor.value else { break }
                // A set's elements are unique by their bytes (§12.4).
                guard !property.isSet || seen.insert(bytes).inserted else {
                    throw ByteScanner.defect("\(treeName): element \(ByteText.short(key)) repeats an element of its set")
                }
                let (mapKey, element) = try withBytes(bytes) { (buffer) throws(FirnError) -> ([UInt8]?, FieldValue?) in
                    guard property.isMap else { return (nil, try ListElement.decode(buffer, as: property.type)) }
                    let (key, element) = try MapEntry.split(buffer)
                    return (Array(key), try ListElement.decode(element, as: property.type))
                }
                // A map's keys strictly increase in byte order: no key twice, a lookup's search holds (§12.4).
                if let mapKey {
                    if let previousKey, !previousKey.lexicographicallyPrecedes(mapKey) {
                        throw ByteScanner.defect("\(treeName): element \(ByteText.short(key)) has key \(String(reflecting: String(decoding: mapKey, as: UTF8.self))), "
                            + (previousKey == mapKey ? "a key its map already has" : "not after the key before it"))
                    }
                    previousKey = mapKey
                }
                elements.append((mapKey.map { String(decoding: $0, as: UTF8.self) },
                                 try element.map { (e) throws(FirnError) in try value(e, of: property, checkTarget: false) } ?? .null))
                try cursor.next()
            }
            return elements
        }

        private static func detail(_ error: FirnError) -> String {
            if case let .corrupt(_, _, _, detail) = error { return detail }
            return error.description
        }
    }
}

extension ObjectDump.Value: CustomStringConvertible {
    /// How a defect names a value ("the primary key id holds int(8), the
    /// object's key is int(7)"): the case and its payload.
    package var description: String {
        switch self {
        case .null: return "null"
        case let .field(field):
            switch field {
            case let .bool(v): return "bool(\(v))"
            case let .int(v): return "int(\(v))"
            case let .double(v): return "double(\(v))"
            case let .float(v): return "float(\(v))"
            case let .string(v): return "string(\(String(reflecting: v)))"
            case let .data(v), let .link(v): return "data(\(v))"
            case let .date(v): return "date(\(v))"
            case let .uuid(v): return "uuid(\(String(reflecting: ObjectKey.uuidString(v))))"
            case let .decimal(v): return "decimal(\(v))"
            }
        case let .generatedID(id): return "generatedID(\(id))"
        case let .link(type, key): return "link(type: \(String(reflecting: type)), key: \(key))"
        case let .list(elements): return "list([\(elements.map(\.description).joined(separator: ", "))])"
        case let .map(entries): return "map([\(entries.map { "\(String(reflecting: $0.key)): \($0.value)" }.joined(separator: ", "))])"
        }
    }
}
