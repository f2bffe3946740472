import FirnCore

/// Embedded objects a migration block replaced (`new["home"] = nil`, or
/// another object; a list of them set to other elements) are deleted with
/// the objects they hold, as assigning the property does in a write: an
/// embedded object has exactly one owner (docs/FORMAT.md §12.7), and one
/// left without an owner is a defect `firn verify` reports.
extension SchemaRewrite {
    /// The embedded objects, by type, that the block's `set`s took out of
    /// the properties holding them: read before anything is rewritten
    /// (the old values live in the trees the rewrite replaces).
    func embeddedReplaced(_ state: MigrationState) throws(DatabaseError) -> [String: Set<[UInt8]>] {
        var replaced: [String: Set<[UInt8]>] = [:]
        for (typeName, objects) in state.sets {
            guard let old = storedSchemas[typeName], let new = plan.schemas[typeName],
                  let records = try engine({ () throws(FirnError) in try transaction.tree(old.treeName, create: false) }) else { continue }
            for (key, values) in objects {
                for name in values.keys {
                    guard let property = new.properties.first(where: { $0.name == name }), let target = property.objectType,
                          plan.schemas[target]?.isEmbedded == true, let source = state.source(of: property, in: typeName),
                          let record = try engine({ () throws(FirnError) in try records.get(key) }) else { continue }
                    let object = MigrationObject(state: state, schema: old, key: key, record: record, isNew: false)
                    let held: [FieldValue?]
                    switch try state.oldValue(of: object, source) {
                    case let .scalar(value): held = [value]
                    case let .list(values): held = values
                    case let .map(entries): held = entries.map(\.value)
                    }
                    for case let .link(child)? in held { replaced[target, default: []].insert(child) }
                }
            }
        }
        return replaced
    }

    /// Deletes those of `candidates` that nothing holds after the rewrite
    /// (one the block moved to another property keeps its place), then
    /// the embedded objects they held, level by level, each checked the
    /// same way.
    func deleteUnheldEmbedded(_ candidates: [String: Set<[UInt8]>]) throws(DatabaseError) {
        var schemas = storedSchemas
        for (name, schema) in plan.schemas { schemas[name] = schema }
        var pending = candidates
        while !pending.isEmpty {
            var next: [String: Set<[UInt8]>] = [:]
            for (typeName, keys) in pending.sorted(by: { $0.key < $1.key }) {
                guard let schema = schemas[typeName] else { continue }
                let orphans = keys.subtracting(try held(typeName, schemas))
                for (child, keys) in try deleteRecords(schema, orphans, schemas) { next[child, default: []].formUnion(keys) }
            }
            pending = next
        }
    }

    /// The keys of `type`'s objects some link field or list element holds.
    private func held(_ type: String, _ schemas: [String: ObjectSchema]) throws(DatabaseError) -> Set<[UInt8]> {
        var keys = Set<[UInt8]>()
        for schema in schemas.values {
            for (tag, property) in schema.properties.enumerated() where property.objectType == type {
                let name = property.isList ? schema.listTreeName(property) : schema.treeName
                guard let tree = try engine({ () throws(FirnError) in try transaction.tree(name, create: false) }) else { continue }
                for (_, value) in try engine({ () throws(FirnError) in try SchemaMigration.entries(tree) }) {
                    let field = try engine { () throws(FirnError) in
                        try value.withUnsafeBytes { bytes in
                            Result { () throws(FirnError) in
                                property.isList ? try ListElement.decode(bytes, of: property) : try ObjectRecord.value(tag, as: property.type, in: bytes)
                            }
                        }.get()
                    }
                    if case let .link(child)? = field { keys.insert(child) }
                }
            }
        }
        return keys
    }

    /// Deletes the objects `keys` of `schema` (records, list elements,
    /// index entries); returns the embedded objects they held, by type.
    private func deleteRecords(_ schema: ObjectSchema, _ keys: Set<[UInt8]>,
                               _ schemas: [String: ObjectSchema]) throws(DatabaseError) -> [String: Set<[UInt8]>] {
        var children: [String: Set<[UInt8]>] = [:]
        guard !keys.isEmpty, let records = try engine({ () throws(FirnError) in try transaction.tree(schema.treeName, create: false) }) else {
            return children
        }
        let limit = transaction.store.geometry.maxKeyLength
        for key in keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            guard let record = try engine({ () throws(FirnError) in try records.get(key) }) else { continue }
            for (tag, property) in schema.properties.enumerated() {
                let embedded = property.objectType.flatMap { schemas[$0] }?.isEmbedded == true
                if property.isList {
                    let name = schema.listTreeName(property)
                    guard let list = try engine({ () throws(FirnError) in try transaction.tree(name, create: false) }) else { continue }
                    let prefix = ListKey.prefix(key)
                    var entries: [[UInt8]] = []
                    try engine { () throws(FirnError) in
                        let cursor = try list.cursor()
                        try cursor.seek(prefix)
                        while cursor.isValid, let entry = try cursor.key, entry.starts(with: prefix) {
                            entries.append(entry)
                            if embedded, let value = try cursor.value,
                               case let .link(child)? = try value.withUnsafeBytes({ bytes in
                                   Result { () throws(FirnError) in try ListElement.decode(bytes, of: property) }
                               }).get(), let target = property.objectType {
                                children[target, default: []].insert(child)
                            }
                            try cursor.next()
                        }
                        for entry in entries { _ = try list.delete(entry) }
                    }
                    continue
                }
                let value = try engine { () throws(FirnError) in
                    try record.withUnsafeBytes { bytes in
                        Result { () throws(FirnError) in try ObjectRecord.value(tag, as: property.type, in: bytes) }
                    }.get()
                } ?? property.absentValue
                if embedded, case let .link(child)? = value, let target = property.objectType { children[target, default: []].insert(child) }
                if property.isIndexed, let entry = IndexKey.key(value, as: property.type, objectKey: key), entry.count <= limit,
                   let index = try engine({ () throws(FirnError) in try transaction.tree(schema.indexTreeName(property), create: false) }) {
                    _ = try engine { () throws(FirnError) in try index.delete(entry) }
                }
            }
            _ = try engine { () throws(FirnError) in try records.delete(key) }
        }
        return children
    }
}
