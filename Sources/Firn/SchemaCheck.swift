import FirnCore

/// Compares the application's schemas with the file's `sys.schema` tree and
/// records the types the file does not have yet. A changed type fails with
/// `.schemaMismatch` naming the property (migrations come in a later slice).
enum SchemaCheck {
    static func prepare(store: Store, schemas: [ObjectSchema]) throws(DatabaseError) {
        try checkTargets(schemas)
        let stored = try engine { () throws(FirnError) -> [String: ObjectSchema] in
            let snapshot = try store.snapshot(kind: .read, label: "Firn schema check")
            defer { snapshot.close() }
            let tree = try snapshot.tree(ObjectSchema.schemaTreeName)
            var stored: [String: ObjectSchema] = [:]
            for schema in schemas {
                if let value = try tree?.get(Array(schema.name.utf8)) {
                    stored[schema.name] = try ObjectSchema.decode(name: schema.name, value.bytes)
                }
            }
            return stored
        }
        try compare(schemas, stored)
        let missing = schemas.filter { stored[$0.name] == nil }
        guard !missing.isEmpty else { return }
        let transaction = try engine { () throws(FirnError) in try store.beginWrite() }
        do {
            let raced = try engine { () throws(FirnError) -> [String: ObjectSchema] in
                guard let tree = try transaction.tree(ObjectSchema.schemaTreeName) else { return [:] }
                var raced: [String: ObjectSchema] = [:]
                for schema in missing {
                    // Another process may have recorded it since the check.
                    if let bytes = try tree.get(Array(schema.name.utf8)) {
                        raced[schema.name] = try bytes.withUnsafeBytes { buffer in
                            Result { () throws(FirnError) in try ObjectSchema.decode(name: schema.name, buffer) }
                        }.get()
                    } else {
                        _ = try tree.put(Array(schema.name.utf8), schema.encode())
                    }
                }
                return raced
            }
            try compare(missing, raced)
            _ = try engine { () throws(FirnError) in try transaction.commit() }
        } catch {
            transaction.abort()
            throw error
        }
    }

    /// Every link and list of objects points to a type the configuration stores.
    private static func checkTargets(_ schemas: [ObjectSchema]) throws(DatabaseError) {
        let names = Set(schemas.map(\.name))
        for schema in schemas {
            for property in schema.properties {
                if let target = property.objectType, !names.contains(target) {
                    throw DatabaseError.invalidSchema(
                        type: schema.name, detail: "property \(property.name) links to \(target), which is not in the configuration's objectTypes")
                }
            }
        }
    }

    private static func compare(_ schemas: [ObjectSchema], _ stored: [String: ObjectSchema]) throws(DatabaseError) {
        for schema in schemas {
            if let old = stored[schema.name], let (property, change) = schema.difference(from: old) {
                throw DatabaseError.schemaMismatch(type: schema.name, property: property, change: change)
            }
        }
    }
}
