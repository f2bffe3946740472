import FirnCore
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
