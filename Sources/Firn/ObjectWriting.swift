import FirnCore

/// Adding, deleting and changing objects in a live instance's write
/// transaction, with what follows from each: unmanaged objects an added
/// object links to are added too (with the same update policy), list
/// properties write their elements to their list trees, and indexed
/// properties keep their index trees in step (docs/FORMAT.md §12).
extension DatabaseCore {
    /// The write transaction's tree `name`, created when missing.
    func writeTree(_ name: String, operation: String) throws(DatabaseError) -> WriteTree {
        guard let transaction else { throw DatabaseError.notInWriteTransaction(operation: operation) }
        guard let tree = try engine({ () throws(FirnError) in try transaction.tree(name) }) else {
            throw DatabaseError.engine(.misuse("\(name): the write transaction has ended"))
        }
        return tree
    }

    /// `owned` is true when a link or list of the owner adds an embedded
    /// object; an embedded object added any other way throws.
    func add(_ object: Object, update: UpdatePolicy, owned: Bool = false) throws(DatabaseError) {
        checkAccess()
        let info = try info(type(of: object))
        if info.schema.isEmbedded, !owned, object.managed == nil {
            throw DatabaseError.embeddedObject(type: info.name, operation: "add it on its own (add or assign it to its owner)")
        }
        if let managed = object.managed {
            if managed.source === self { return }
            if managed.source.isFrozen { throw DatabaseError.frozen(type: info.name, operation: "add it") }
            throw DatabaseError.objectFromAnotherDatabase(type: info.name)
        }
        let tree = try writeTree(info.schema.treeName, operation: "add(\(info.name))")
        let values = info.unmanagedValues(of: object)
        let key: [UInt8]
        var replaced: [UInt8]?
        if let (index, property) = info.primaryKey {
            let value = values.field(index).value
            guard let value, let encoded = ObjectKey.encode(value, as: property.type) else {
                throw DatabaseError.typeMismatch(type: info.name, property: property.name,
                                                 expected: "\(property.type)", found: "\(value.map { "\($0)" } ?? "null")")
            }
            replaced = try engine { () throws(FirnError) in try tree.get(encoded) }
            if update == .error, replaced != nil {
                throw DatabaseError.duplicatePrimaryKey(type: info.name, property: property.name, value: "\(value)")
            }
            key = encoded
        } else {
            key = try nextKey(info, tree)
        }
        // The replaced object's embedded objects go with its old values
        // (read before its lists are rewritten).
        var replacedEmbedded: [(ClassInfo, [[UInt8]])] = []
        if let replaced {
            try removeIndexEntries(info, key: key, record: replaced)
            replacedEmbedded = try ownedEmbedded(info, key: key, record: replaced)
        }
        // Managed before its properties are stored: an object that links
        // back to it (a cycle) then stores its key instead of adding it again.
        object.managed = ManagedObject(source: self, info: info, key: key)
        do {
            var fields: [(tag: Int, type: PropertyType, value: FieldValue?)] = []
            fields.reserveCapacity(info.schema.properties.count)
            // One context, its index moved along (not one per property).
            var context = _StoreContext(core: self, update: update, operation: info.addOperation,
                                        owner: info, ownerKey: key, index: 0, replacing: replaced != nil)
            for (index, property) in info.schema.properties.enumerated() {
                context.index = index
                let field = try values.stored(index, context)
                if !property.isList { fields.append((index, property.type, field.value)) }
            }
            let record = ObjectRecord.encode(fields)
            _ = try engine { () throws(FirnError) in try tree.put(key, record) }
            try addIndexEntries(info, key: key, fields: fields)
            for (target, keys) in replacedEmbedded { try deleteEmbedded(target, keys) }
        } catch {
            object.managed = nil
            throw error
        }
        changed()
    }

    /// The key a link stores for `object`: its own when this instance
    /// manages it; an unmanaged object is added first (cascade). A frozen
    /// object must be thawed first; another instance's object cannot be linked.
    func linkKey(to object: Object, _ context: _StoreContext) throws(DatabaseError) -> [UInt8] {
        let name = String(describing: type(of: object))
        if let managed = object.managed {
            if managed.info.schema.isEmbedded {
                throw DatabaseError.embeddedObject(type: name, operation: "\(context.operation): it already has an owner (assign a new, unmanaged object)")
            }
            if managed.source === self { return managed.key }
            if managed.source.isFrozen { throw DatabaseError.frozen(type: name, operation: context.operation) }
            throw DatabaseError.objectFromAnotherDatabase(type: name)
        }
        try add(object, update: context.update, owned: true)
        guard let managed = object.managed else { throw DatabaseError.unmanagedObject(type: name, operation: context.operation) }
        return managed.key
    }

    /// The next generated key of the type: never one given before, also
    /// after the object holding the largest was deleted (`GeneratedKeys`).
    private func nextKey(_ info: ClassInfo, _ tree: WriteTree) throws(DatabaseError) -> [UInt8] {
        guard let transaction else { throw DatabaseError.notInWriteTransaction(operation: "add(\(info.name))") }
        var next: UInt64
        if let cached = nextIDs[info.name] {
            next = cached
        } else {
            next = try engine { () throws(FirnError) in try GeneratedKeys.next(info.schema, tree, in: transaction) }
        }
        guard next < UInt64.max else {
            throw DatabaseError.engine(.corrupt(path: store.path, page: nil, version: nil, detail: "\(info.schema.treeName): no generated key is left"))
        }
        nextIDs[info.name] = next + 1
        return ObjectKey.generated(next)
    }

    func delete(_ object: Object) throws(DatabaseError) {
        checkAccess()
        let info = try info(type(of: object))
        try deleteKeys(info, [try deletableKey(object, info)])
    }

    /// The key of `object`, checked to be an object this instance may delete.
    func deletableKey(_ object: Object, _ info: ClassInfo) throws(DatabaseError) -> [UInt8] {
        guard let managed = object.managed else { throw DatabaseError.unmanagedObject(type: info.name, operation: "delete it") }
        guard managed.source === self else {
            if managed.source.isFrozen { throw DatabaseError.frozen(type: info.name, operation: "delete it") }
            throw DatabaseError.objectFromAnotherDatabase(type: info.name)
        }
        guard managed.session == session else { throw DatabaseError.invalidatedInstance(type: info.name) }
        return managed.key
    }

    /// Deletes the objects of `info`'s type under `keys` (keys of objects
    /// already gone are skipped), with their index entries, their lists'
    /// elements, and their places in other objects' lists — found with one
    /// scan of each list tree that can hold them, however many are deleted.
    func deleteKeys(_ info: ClassInfo, _ keys: [[UInt8]]) throws(DatabaseError) {
        let tree = try writeTree(info.schema.treeName, operation: "delete(\(info.name))")
        var deleted = Set<[UInt8]>()
        var owned: [(ClassInfo, [[UInt8]])] = []
        for key in keys {
            guard let record = try engine({ () throws(FirnError) in try tree.get(key) }) else { continue }
            try removeIndexEntries(info, key: key, record: record)
            owned += try ownedEmbedded(info, key: key, record: record)
            for (index, property) in info.schema.properties.enumerated() where property.isList {
                try listStorage(info, key: key, index: index).removeAll(self)
            }
            _ = try engine { () throws(FirnError) in try tree.delete(key) }
            deleted.insert(key)
        }
        try removeFromLists(info, keys: deleted)
        // Embedded objects go with their owners (FORMAT.md §12.7), nested
        // ones in turn by the same call.
        for (target, keys) in owned { try deleteEmbedded(target, keys) }
        changed()
    }

    /// Rewrites one field of a stored record (and its index entry).
    func update(_ info: ClassInfo, key: [UInt8], index: Int, field: PersistedField) throws(DatabaseError) {
        let tree = try writeTree(info.schema.treeName, operation: "setting \(info.name)")
        let property = info.schema.properties[index]
        var previous: FieldValue?
        let record = try engine { () throws(FirnError) -> [UInt8] in
            guard let old = try tree.get(key) else {
                throw FirnError.misuse("\(info.name): the object has been deleted")
            }
            var fields = try old.withUnsafeBytes { buffer in
                Result { () throws(FirnError) in try ObjectRecord.decodeAll(buffer) }
            }.get().compactMap { field -> (tag: Int, type: PropertyType, value: FieldValue?)? in
                guard field.tag < info.schema.properties.count else { return nil }
                return (field.tag, info.schema.properties[field.tag].type, field.value)
            }
            let new = (tag: index, type: property.type, value: field.value)
            if let at = fields.firstIndex(where: { $0.tag == index }) {
                previous = fields[at].value
                fields[at] = new
            } else {
                fields.insert(new, at: fields.firstIndex { $0.tag > index } ?? fields.endIndex)
            }
            return ObjectRecord.encode(fields)
        }
        if property.isIndexed {
            try removeIndexEntry(info, index: index, value: previous ?? property.absentValue, key: key)
            try addIndexEntry(info, index: index, value: field.value, key: key)
        }
        _ = try engine { () throws(FirnError) in try tree.put(key, record) }
        changed()
    }
}
