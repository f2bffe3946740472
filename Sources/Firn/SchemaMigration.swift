import FirnCore

/// Brings the file's schemas (`sys.schema`) and schema version (`sys.meta`)
/// to the configuration's when an instance opens (docs/SDK.md, "Migrations").
///
/// A read-only look first: when the file already has the configuration's
/// schemas and version, nothing is written. Otherwise everything happens in
/// one write transaction, which looks again (another thread or process may
/// have migrated meanwhile, and then there is nothing left to do): new types
/// are recorded; additive changes (properties added or reordered, the
/// indexed flag) rewrite the type's records, lists and indexes; any other
/// change needs a higher `schemaVersion` and a `migrationBlock`, which runs
/// inside the same transaction. Nothing is committed when any step fails.
enum SchemaMigration {
    static func prepare(store: Store, configuration: Configuration, schemas: [ObjectSchema]) throws(DatabaseError) {
        try checkTargets(schemas)
        let (stored, storedVersion) = try engine { () throws(FirnError) -> ([String: ObjectSchema], UInt64) in
            let snapshot = try store.snapshot(kind: .read, label: "Firn schema check")
            defer { snapshot.close() }
            var stored: [String: ObjectSchema] = [:]
            if let tree = try snapshot.tree(ObjectSchema.schemaTreeName) {
                for schema in schemas {
                    if let value = try tree.get(Array(schema.name.utf8)) {
                        stored[schema.name] = try ObjectSchema.decode(name: schema.name, value.bytes)
                    }
                }
            }
            var version: UInt64 = 0
            if let meta = try snapshot.tree(SchemaMeta.treeName), let value = try meta.get(SchemaMeta.schemaVersionKey) {
                version = try SchemaMeta.decode(value.array, key: "schemaVersion")
            }
            return (stored, version)
        }
        guard try SchemaPlan(schemas, stored: stored, storedVersion: storedVersion, configuration).needsWrite else { return }
        if configuration.readOnly {
            let differing = schemas.filter { stored[$0.name] != $0 }.map(\.name)
            let change = differing.isEmpty ? "record schemaVersion \(configuration.schemaVersion) (the file has \(storedVersion))"
                : "bring the file's schema of \(differing.joined(separator: ", ")) to the configuration's"
            throw DatabaseError.readOnly(operation: change)
        }

        let transaction = try engine { () throws(FirnError) in try store.beginWriteBlocking() }
        do {
            let (all, version) = try engine { () throws(FirnError) in try storedState(transaction) }
            let plan = try SchemaPlan(schemas, stored: all, storedVersion: version, configuration)
            guard plan.needsWrite else {
                transaction.abort()
                return
            }
            try SchemaRewrite(transaction: transaction, plan: plan, storedSchemas: all, configuration: configuration).run()
            _ = try engine { () throws(FirnError) in try transaction.commit() }
        } catch {
            transaction.abort()
            throw error
        }
    }

    /// Every schema of the file and its schema version (0 when none is recorded).
    private static func storedState(_ transaction: WriteTransaction) throws(FirnError) -> ([String: ObjectSchema], UInt64) {
        var all: [String: ObjectSchema] = [:]
        if let tree = try transaction.tree(ObjectSchema.schemaTreeName, create: false) {
            for (key, value) in try entries(tree) {
                guard let name = String(validating: key, as: UTF8.self) else {
                    throw ByteScanner.defect("\(ObjectSchema.schemaTreeName) has a key that is not UTF-8")
                }
                all[name] = try value.withUnsafeBytes { buffer in
                    Result { () throws(FirnError) in try ObjectSchema.decode(name: name, buffer) }
                }.get()
            }
        }
        var version: UInt64 = 0
        if let meta = try transaction.tree(SchemaMeta.treeName, create: false), let bytes = try meta.get(SchemaMeta.schemaVersionKey) {
            version = try SchemaMeta.decode(bytes, key: "schemaVersion")
        }
        return (all, version)
    }

    /// Every entry of `tree`, in key order.
    static func entries(_ tree: WriteTree) throws(FirnError) -> [(key: [UInt8], value: [UInt8])] {
        var out: [(key: [UInt8], value: [UInt8])] = []
        let cursor = try tree.cursor()
        try cursor.first()
        while cursor.isValid {
            if let key = try cursor.key, let value = try cursor.value { out.append((key, value)) }
            try cursor.next()
        }
        return out
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
}

/// What opening with a configuration changes in a file, decided from the
/// schemas alone; throws when the file cannot be opened as configured.
struct SchemaPlan {
    /// The configuration's schemas by name.
    let schemas: [String: ObjectSchema]
    /// Types the file does not have yet.
    let added: [ObjectSchema]
    /// Types whose stored schema differs.
    let changed: [ObjectSchema]
    let storedVersion: UInt64
    let configuredVersion: UInt64
    /// The migration block runs: the version goes up and the file had objects' schemas.
    let runsBlock: Bool

    var needsWrite: Bool { !added.isEmpty || !changed.isEmpty || storedVersion != configuredVersion }

    init(_ schemas: [ObjectSchema], stored: [String: ObjectSchema], storedVersion: UInt64, _ configuration: Configuration) throws(DatabaseError) {
        let configured = configuration.schemaVersion
        guard storedVersion <= configured else {
            throw DatabaseError.schemaVersionTooLow(configured: configured, stored: storedVersion)
        }
        let bumped = configured > storedVersion
        var added: [ObjectSchema] = [], changed: [ObjectSchema] = []
        for schema in schemas.sorted(by: { $0.name < $1.name }) {
            guard let old = stored[schema.name] else {
                added.append(schema)
                continue
            }
            guard old != schema else { continue }
            // Objects of a top-level type have no owner to become embedded
            // in, and embedded ones none to be found by once top-level: no
            // rewrite of records makes either change keep FORMAT.md §12.7.
            // A list's elements may repeat, so no rewrite makes it a set;
            // and a set made a list would lose nothing but the rule: both refused.
            for property in schema.properties {
                if let before = old.properties.first(where: { $0.name == property.name }), before.isList, property.isList, before.isSet != property.isSet {
                    throw DatabaseError.invalidMigration(type: schema.name, property: property.name,
                                                         detail: "a property cannot change between List and MutableSet")
                }
                // A map's entries have keys no list element has (and back).
                if let before = old.properties.first(where: { $0.name == property.name }), before.isList, property.isList, before.isMap != property.isMap {
                    throw DatabaseError.invalidMigration(type: schema.name, property: property.name,
                                                         detail: "a property cannot change between \(before.collectionDescription) and \(property.collectionDescription)")
                }
            }
            if old.isEmbedded != schema.isEmbedded {
                throw DatabaseError.invalidMigration(type: schema.name, property: "(type)",
                                                     detail: "a type cannot change from \(old.isEmbedded ? "embedded" : "top-level") to \(schema.isEmbedded ? "embedded" : "top-level")")
            }
            changed.append(schema)
            if let (property, change) = Self.destructiveChange(from: old, to: schema), !bumped || configuration.migrationBlock == nil {
                throw DatabaseError.migrationRequired(type: schema.name, property: property, change: change, storedVersion: storedVersion,
                                                      configuredVersion: configured, hasBlock: configuration.migrationBlock != nil)
            }
        }
        self.schemas = Dictionary(uniqueKeysWithValues: schemas.map { ($0.name, $0) })
        self.added = added
        self.changed = changed
        self.storedVersion = storedVersion
        configuredVersion = configured
        runsBlock = bumped && configuration.migrationBlock != nil && !stored.isEmpty
    }

    /// The first change from `old` to `new` that is not additive (anything
    /// but properties added or moved and the indexed flag), in words.
    static func destructiveChange(from old: ObjectSchema, to new: ObjectSchema) -> (property: String, change: String)? {
        for property in new.properties {
            guard let before = old.properties.first(where: { $0.name == property.name }) else {
                if property.isPrimaryKey { return (property.name, "property \(property.name) was added as the primary key") }
                continue
            }
            if before.isList != property.isList {
                return (property.name, "property \(property.name) changed from \(before.isList ? "a list" : "a single value") to \(property.isList ? "a list" : "a single value") (\(before) → \(property))")
            }
            if before.type != property.type || before.objectType != property.objectType {
                let what = before.type == .object && property.type == .object ? "link target" : "type"
                return (property.name, "property \(property.name) changed its \(what) from \(before.elementDescription) to \(property.elementDescription)")
            }
            if before.isOptional != property.isOptional {
                return (property.name, "property \(property.name) became \(property.isOptional ? "optional" : "required") (\(before.elementDescription) → \(property.elementDescription))")
            }
            if before.isPrimaryKey != property.isPrimaryKey {
                return (property.name, "property \(property.name) \(property.isPrimaryKey ? "became the primary key" : "is no longer the primary key")")
            }
        }
        for before in old.properties where !new.properties.contains(where: { $0.name == before.name }) {
            return (before.name, "property \(before.name) was removed\(before.isPrimaryKey ? " (it was the primary key)" : "")")
        }
        return nil
    }
}
