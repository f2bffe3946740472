/// The object types a version stores, read from its schema tree `sys.schema`
/// alone (docs/FORMAT.md §12.1) — no application code, no SDK runtime. `info`
/// lists them with their counts; `dump --objects` decodes their records.
public struct StoredType: Codable, Sendable, Equatable {
    public struct Property: Codable, Sendable, Equatable {
        public var name: String
        /// The stored type's Swift name (`Int`, `String`, `Date`, `Object`…);
        /// for a list, its elements' type.
        public var type: String
        public var optional: Bool
        public var primaryKey: Bool
        public var indexed: Bool
        public var list: Bool
        /// The type a link or a list of objects points to.
        public var target: String?
        /// As Swift declares it: `List<Dog>`, `String?`, `Person?`.
        public var declaration: String
    }

    public var name: String
    /// Objects in the version (entries of `obj.<name>`).
    public var objects: UInt64
    /// The primary key property, nil when keys are generated.
    public var primaryKey: String?
    public var properties: [Property]

    init(_ schema: ObjectSchema, objects: UInt64) {
        name = schema.name
        self.objects = objects
        primaryKey = schema.primaryKeyIndex.map { schema.properties[$0].name }
        properties = schema.properties.map {
            Property(name: $0.name, type: $0.type.description, optional: $0.isOptional, primaryKey: $0.isPrimaryKey,
                     indexed: $0.isIndexed, list: $0.isList, target: $0.objectType,
                     declaration: $0.isList ? "List<\($0.elementDescription)>" : $0.elementDescription)
        }
    }
}

/// Reading `sys.schema`: every record decoded and checked, every link's
/// target a stored type (a defect otherwise, §12.1).
package enum StoredSchema {
    /// The version's schemas in the schema tree's (name) order; empty when
    /// the file has no schema tree (not written by the SDK).
    package static func read(_ snapshot: Snapshot) throws(FirnError) -> [ObjectSchema] {
        guard let tree = try snapshot.tree(ObjectSchema.schemaTreeName) else { return [] }
        var visited = Set<UInt64>()
        try snapshot.walkPages(root: tree.entry.root, tree: tree.name, depth: .branches, visited: &visited) { (_) throws(FirnError) in }
        let cursor = tree.cursor()
        try cursor.first()
        var schemas: [ObjectSchema] = []
        while cursor.isValid {
            guard let key = try cursor.key, let value = try cursor.value else { break }
            guard let name = String(validating: key, as: UTF8.self) else {
                throw defect(snapshot, "\(ObjectSchema.schemaTreeName): a type name is not UTF-8 (\(ByteText.short(key)))")
            }
            do {
                schemas.append(try value.withUnsafeBytes { buffer in
                    Result { () throws(FirnError) in try ObjectSchema.decode(name: name, buffer) }
                }.get())
            } catch {
                throw located(error, snapshot, in: ObjectSchema.schemaTreeName)
            }
            try cursor.next()
        }
        let names = Set(schemas.map(\.name))
        for schema in schemas {
            for property in schema.properties {
                if let target = property.objectType, !names.contains(target) {
                    throw defect(snapshot, "\(ObjectSchema.schemaTreeName): type \(schema.name): property \(property.name) "
                                 + "links to \(target), which has no schema")
                }
            }
        }
        return schemas
    }

    /// The stored types with the number of objects of each.
    package static func types(_ snapshot: Snapshot, _ schemas: [ObjectSchema]) throws(FirnError) -> [StoredType] {
        var types: [StoredType] = []
        for schema in schemas {
            types.append(StoredType(schema, objects: try snapshot.tree(schema.treeName)?.count ?? 0))
        }
        return types
    }

    static func defect(_ snapshot: Snapshot, _ detail: String) -> FirnError {
        .corrupt(path: snapshot.store.path, page: nil, version: snapshot.version, detail: detail)
    }

    /// A decoding error of the Objects layer (which knows no path) placed in
    /// the file, the version and the tree it came from.
    static func located(_ error: FirnError, _ snapshot: Snapshot, in place: String) -> FirnError {
        if case let .corrupt(path, page, version, detail) = error, path.isEmpty {
            return .corrupt(path: snapshot.store.path, page: page, version: version ?? snapshot.version,
                            detail: "\(place): \(detail)")
        }
        return error
    }
}
