import FirnCore

/// Carries out a `SchemaPlan` in the migration's write transaction: runs the
/// migration block, records the schemas, rewrites the records of each
/// changed type by property name (tags follow the new order), moves list
/// elements to their new trees, rebuilds the type's index trees, and — when
/// a primary key change gave objects new keys — rewrites every link and
/// list element that points to them (a link to a key that no longer names
/// an object becomes null, so it cannot come to name a new one); last,
/// deletes the embedded objects the block's sets left without an owner
/// (`MigrationEmbedded.swift`).
struct SchemaRewrite {
    let transaction: WriteTransaction
    let plan: SchemaPlan
    let storedSchemas: [String: ObjectSchema]
    let configuration: Configuration

    func run() throws(DatabaseError) {
        let state = MigrationState(transaction: transaction, oldSchemas: storedSchemas, newSchemas: plan.schemas,
                                   oldVersion: plan.storedVersion, newVersion: plan.configuredVersion)
        if plan.runsBlock, let block = configuration.migrationBlock {
            do {
                try block(Migration(state: state), plan.storedVersion)
            } catch let error as DatabaseError {
                throw error
            } catch {
                throw DatabaseError.migrationBlockFailed(oldVersion: plan.storedVersion, newVersion: plan.configuredVersion, error: "\(error)")
            }
            if let error = state.takeError() { throw error }
        }
        let replaced = try embeddedReplaced(state)
        let schemaTree = try tree(ObjectSchema.schemaTreeName)
        for schema in plan.added + plan.changed {
            _ = try engine { () throws(FirnError) in try schemaTree.put(Array(schema.name.utf8), schema.encode()) }
        }
        // Types rewritten: those whose schema changed, and those the block changed.
        var rewritten = Set(plan.changed.map(\.name))
        rewritten.formUnion(state.sets.keys.filter { storedSchemas[$0] != nil })
        rewritten.formUnion(state.renames.keys)
        var keyMaps: [String: [[UInt8]: [UInt8]]] = [:]
        for name in rewritten.sorted() {
            guard let old = storedSchemas[name], let new = plan.schemas[name] else { continue }
            if let map = try rewrite(old: old, new: new, state) { keyMaps[name] = map }
        }
        if !keyMaps.isEmpty {
            var finalSchemas = storedSchemas
            for (name, schema) in plan.schemas { finalSchemas[name] = schema }
            try remapLinks(keyMaps, schemas: finalSchemas)
        }
        // What the block took out of an embedded link or list goes, as assigning it does in a write.
        if !replaced.isEmpty { try deleteUnheldEmbedded(replaced) }
        if plan.configuredVersion != plan.storedVersion {
            let meta = try tree(SchemaMeta.treeName)
            _ = try engine { () throws(FirnError) in try meta.put(SchemaMeta.schemaVersionKey, SchemaMeta.encode(plan.configuredVersion)) }
        }
    }

    private func tree(_ name: String) throws(DatabaseError) -> WriteTree {
        guard let tree = try engine({ () throws(FirnError) in try transaction.tree(name) }) else {
            throw DatabaseError.engine(.misuse("\(name): the migration's write transaction has ended"))
        }
        return tree
    }

    private func drop(_ name: String) throws(DatabaseError) {
        _ = try engine { () throws(FirnError) in try transaction.dropTree(name) }
    }

    /// Rewrites type `new.name` from `old`; returns the map from every old
    /// key to its new key when keys changed (a primary key change), else nil.
    private func rewrite(old: ObjectSchema, new: ObjectSchema, _ state: MigrationState) throws(DatabaseError) -> [[UInt8]: [UInt8]]? {
        let objects = try engine { () throws(FirnError) in try state.oldRecords(old) }
        let limit = transaction.store.geometry.maxKeyLength

        // New records and keys.
        var records: [(oldKey: [UInt8], key: [UInt8], record: [UInt8], fields: [(tag: Int, type: PropertyType, value: FieldValue?)])] = []
        var seen = Set<[UInt8]>()
        var nextID: UInt64? = nil
        var rekeyed = false
        for (oldKey, oldRecord) in objects {
            let newObject = MigrationObject(state: state, schema: new, key: oldKey, record: oldRecord, isNew: true)
            var fields: [(tag: Int, type: PropertyType, value: FieldValue?)] = []
            for (tag, property) in new.properties.enumerated() where !property.isList {
                guard case let .scalar(value) = try state.newValue(of: newObject, property) else { continue }
                fields.append((tag, property.type, value))
            }
            let key: [UInt8]
            if let pk = new.primaryKeyIndex {
                let property = new.properties[pk]
                let value = fields.first { $0.tag == pk }?.value
                guard let value, let encoded = ObjectKey.encode(value, as: property.type) else {
                    throw DatabaseError.typeMismatch(type: new.name, property: property.name, expected: "\(property.type)", found: value.map { "\($0)" } ?? "null")
                }
                guard encoded.count <= limit else {
                    throw DatabaseError.invalidValue(type: new.name, property: property.name,
                                                     detail: "the primary key \(value) takes \(encoded.count) bytes, more than the key limit of \(limit)")
                }
                guard seen.insert(encoded).inserted else {
                    throw DatabaseError.duplicatePrimaryKey(type: new.name, property: property.name, value: "\(value)")
                }
                key = encoded
            } else if old.primaryKeyIndex == nil {
                key = oldKey
            } else {
                // Keys were primary keys: generate new ones, past any given before.
                var id: UInt64
                if let nextID {
                    id = nextID
                } else {
                    id = try engine { () throws(FirnError) in try GeneratedKeys.stored(new.name, in: transaction) } ?? 1
                }
                key = ObjectKey.generated(id)
                id += 1
                nextID = id
            }
            if key != oldKey { rekeyed = true }
            records.append((oldKey, key, ObjectRecord.encode(fields), fields))
        }
        if let nextID {
            let meta = try tree(SchemaMeta.treeName)
            _ = try engine { () throws(FirnError) in try meta.put(SchemaMeta.nextKeyKey(new.name), SchemaMeta.encode(nextID)) }
        } else if new.primaryKeyIndex != nil, let meta = try engine({ () throws(FirnError) in try transaction.tree(SchemaMeta.treeName, create: false) }) {
            // A type with a primary key has no generated keys (§12.6).
            _ = try engine { () throws(FirnError) in try meta.delete(SchemaMeta.nextKeyKey(new.name)) }
        }

        // Lists: read every kept or set list before any list tree changes.
        // Per owner, its elements; a map's each with its key (in key order).
        var lists: [(property: PropertySchema, elements: [[UInt8]: [(key: String?, value: FieldValue?)]])] = []
        var listTreesKept = Set<String>()
        for property in new.properties where property.isList {
            let source = state.source(of: property, in: new.name)
            let setsAny = state.sets[new.name]?.values.contains { $0[property.name] != nil } ?? false
            if let source, source.name == property.name, !setsAny, !rekeyed {
                listTreesKept.insert(new.listTreeName(property))
                continue
            }
            var elements: [[UInt8]: [(key: String?, value: FieldValue?)]] = [:]
            for (oldKey, oldRecord) in objects {
                let newObject = MigrationObject(state: state, schema: new, key: oldKey, record: oldRecord, isNew: true)
                switch try state.newValue(of: newObject, property) {
                case let .list(values) where !values.isEmpty: elements[oldKey] = values.map { (nil, $0) }
                case let .map(entries) where !entries.isEmpty: elements[oldKey] = entries.map { ($0.key, $0.value) }
                default: break
                }
            }
            lists.append((property, elements))
        }
        for property in old.properties where property.isList && !listTreesKept.contains(old.listTreeName(property)) {
            try drop(old.listTreeName(property))
        }
        let newKeys = Dictionary(uniqueKeysWithValues: records.map { ($0.oldKey, $0.key) })
        for (property, elements) in lists {
            let name = new.listTreeName(property)
            try drop(name)
            guard !elements.isEmpty else { continue }
            let listTree = try tree(name)
            for (oldKey, values) in elements {
                let prefix = ListKey.prefix(newKeys[oldKey] ?? oldKey)
                for (position, (mapKey, value)) in values.enumerated() {
                    let key = ListKey.key(prefix: prefix, position)
                    guard key.count <= limit else {
                        throw DatabaseError.invalidValue(type: new.name, property: property.name, detail: "the owner's key is too long for a list entry")
                    }
                    guard let element = ListElement.encode(value, as: property.type), value != nil || property.isOptional else {
                        throw DatabaseError.typeMismatch(type: new.name, property: property.name, expected: property.elementDescription,
                                                         found: value.map { "\($0)" } ?? "nil")
                    }
                    let bytes = mapKey.map { MapEntry.encode(key: $0, element: element) } ?? element
                    _ = try engine { () throws(FirnError) in try listTree.put(key, bytes) }
                }
            }
        }

        // Records.
        if rekeyed { try drop(new.treeName) }
        let objectTree = try tree(new.treeName)
        for (index, entry) in records.enumerated() where rekeyed || entry.record != objects[index].value {
            _ = try engine { () throws(FirnError) in try objectTree.put(entry.key, entry.record) }
        }

        // Indexes: rebuilt from the new records.
        for property in old.properties where property.isIndexed { try drop(old.indexTreeName(property)) }
        for (tag, property) in new.properties.enumerated() where property.isIndexed {
            let name = new.indexTreeName(property)
            try drop(name)
            let indexTree = try tree(name)
            for entry in records {
                let value = entry.fields.first { $0.tag == tag }.map(\.value) ?? property.absentValue
                guard let key = IndexKey.key(value, as: property.type, objectKey: entry.key) else {
                    throw DatabaseError.typeMismatch(type: new.name, property: property.name, expected: "\(property.type)", found: value.map { "\($0)" } ?? "null")
                }
                guard key.count <= limit else {
                    throw DatabaseError.invalidValue(type: new.name, property: property.name,
                                                     detail: "the indexed value and the object's key take \(key.count) bytes, more than the key limit of \(limit)")
                }
                _ = try engine { () throws(FirnError) in try indexTree.put(key, []) }
            }
        }
        return rekeyed ? newKeys : nil
    }

    /// Points every link and list element into a type in `keyMaps` at the
    /// target's new key; a link whose old key names no object becomes null.
    private func remapLinks(_ keyMaps: [String: [[UInt8]: [UInt8]]], schemas: [String: ObjectSchema]) throws(DatabaseError) {
        for schema in schemas.values.sorted(by: { $0.name < $1.name }) {
            let links = schema.properties.enumerated().filter { !$0.element.isList && $0.element.objectType.map { keyMaps[$0] != nil } == true }
            if !links.isEmpty, let objectTree = try engine({ () throws(FirnError) in try transaction.tree(schema.treeName, create: false) }) {
                for (key, record) in try engine({ () throws(FirnError) in try SchemaMigration.entries(objectTree) }) {
                    var fields = try engine { () throws(FirnError) in
                        try record.withUnsafeBytes { buffer in Result { () throws(FirnError) in try ObjectRecord.decodeAll(buffer) } }.get()
                    }
                    var changed = false
                    for (tag, property) in links {
                        guard let at = fields.firstIndex(where: { $0.tag == tag }), case let .link(target)? = fields[at].value,
                              let map = keyMaps[property.objectType ?? ""] else { continue }
                        let mapped = map[target]
                        if mapped != target {
                            fields[at] = (tag, mapped == nil ? nil : .object, mapped.map { FieldValue.link($0) })
                            changed = true
                        }
                    }
                    guard changed else { continue }
                    let encoded = ObjectRecord.encode(fields.map { (tag: $0.tag, type: $0.type ?? .object, value: $0.value) })
                    _ = try engine { () throws(FirnError) in try objectTree.put(key, encoded) }
                }
            }
            for property in schema.properties where property.isList && property.objectType.map({ keyMaps[$0] != nil }) == true {
                guard let map = keyMaps[property.objectType ?? ""],
                      let listTree = try engine({ () throws(FirnError) in try transaction.tree(schema.listTreeName(property), create: false) }) else { continue }
                for (key, value) in try engine({ () throws(FirnError) in try SchemaMigration.entries(listTree) }) {
                    let (mapKey, element) = try engine { () throws(FirnError) in
                        try value.withUnsafeBytes { buffer in
                            Result { () throws(FirnError) -> (String?, FieldValue?) in
                                guard property.isMap else { return (nil, try ListElement.decode(buffer, as: .object)) }
                                let entry = try MapEntry.decode(buffer, as: .object)
                                return (entry.key, entry.value)
                            }
                        }.get()
                    }
                    guard case let .link(target)? = element, let mapped = map[target], mapped != target,
                          let element = ListElement.encode(.link(mapped), as: .object) else { continue }
                    // A map entry keeps its key.
                    let bytes = mapKey.map { MapEntry.encode(key: $0, element: element) } ?? element
                    _ = try engine { () throws(FirnError) in try listTree.put(key, bytes) }
                }
            }
        }
    }
}
