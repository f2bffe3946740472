import FirnCore
/// `verify`'s check of the object layer (docs/FORMAT.md §12), run over
/// pages the page walk already proved: every schema record and object record
/// decodes under the stored schema as `dump --objects` decodes it (so a file
/// that `dump --objects` refuses never verifies clean), every list element
/// belongs to an object of its type, every index tree holds exactly one
/// entry per object, the one its record's value makes, and every embedded
/// object has exactly one owner (`EmbeddedOwnershipCheck`).
enum ObjectLayerCheck {
    /// The first defect of the object layer of `snapshot`, as a finding
    /// (kind `object`); nil when it is sound.
    static func firstDefect(_ snapshot: Snapshot, path: String) -> VerifyFinding? {
        do {
            // The schemas the decode read, not read a second time.
            let decoded = try ObjectDump.decode(snapshot, only: nil, limit: nil, path: path, type: { _ in }, object: { _ in })
            for schema in decoded.schemas {
                try checkLists(schema, snapshot)
                try checkIndexes(schema, snapshot)
            }
            try EmbeddedOwnershipCheck.check(decoded.schemas, snapshot)
            return nil
        } catch let FirnError.corrupt(_, page, version, detail) {
            return VerifyFinding(.object, page: page, version: version ?? snapshot.version, message: detail)
        } catch {
            return VerifyFinding(.object, version: snapshot.version, message: "\(error)")
        }
    }

    /// Each element of each list tree of `schema` names an object of the
    /// type (`dump --objects` reads lists from their owners, so an element
    /// whose owner is gone would go unseen).
    private static func checkLists(_ schema: ObjectSchema, _ snapshot: Snapshot) throws(FirnError) {
        let objects = try snapshot.tree(schema.treeName)
        for property in schema.properties where property.isList {
            let name = schema.listTreeName(property)
            guard let list = try snapshot.tree(name) else { continue }
            let cursor = list.cursor()
            try cursor.first()
            while cursor.isValid {
                guard let key = try cursor.key else { break }
                let owner = try withBytes(key) { (bytes) throws(FirnError) in
                    try located(snapshot, name, key) { () throws(FirnError) in Array(try ListKey.decode(bytes).owner) }
                }
                guard try objects?.get(owner) != nil else {
                    throw defect(snapshot, name, key, "a list element of \(schema.name).\(property.name) whose owner \(ByteText.short(owner)) is no \(schema.name) object")
                }
                try cursor.next()
            }
        }
    }

    /// Each index tree of `schema` holds one entry per object of the type,
    /// the one the object's value makes (`IndexKey`): every entry names an
    /// object whose value encodes to it, and there are as many entries as
    /// objects (so no object lacks its entry).
    private static func checkIndexes(_ schema: ObjectSchema, _ snapshot: Snapshot) throws(FirnError) {
        let objects = try snapshot.tree(schema.treeName)
        let objectCount = objects?.count ?? 0
        for (tag, property) in schema.properties.enumerated() where property.isIndexed {
            let name = schema.indexTreeName(property)
            let index = try snapshot.tree(name)
            let entries = index?.count ?? 0
            guard entries == objectCount else {
                throw FirnError.corrupt(
                    path: snapshot.store.path, page: nil, version: snapshot.version,
                    detail: "\(name): \(entries) index entries for \(objectCount) \(schema.name) objects (one per object expected)")
            }
            guard let index else { continue }
            let cursor = index.cursor()
            try cursor.first()
            while cursor.isValid {
                guard let key = try cursor.key else { break }
                let objectKey = try withBytes(key) { (bytes) throws(FirnError) in
                    try located(snapshot, name, key) { () throws(FirnError) in
                        Array(bytes[try IndexKey.valueLength(bytes, as: property.type)...])
                    }
                }
                guard let record = try objects?.get(objectKey) else {
                    throw defect(snapshot, name, key, "an index entry names \(ByteText.short(objectKey)), no \(schema.name) object")
                }
                let value = try located(snapshot, schema.treeName, objectKey) { () throws(FirnError) in
                    try ObjectRecord.value(tag, as: property.type, in: record.bytes) ?? property.absentValue
                }
                guard IndexKey.key(value, as: property.type, objectKey: objectKey) == key else {
                    throw defect(snapshot, name, key, "the index entry does not match the \(property.name) of \(schema.name) \(ByteText.short(objectKey))")
                }
                try cursor.next()
            }
        }
    }

    private static func defect(_ snapshot: Snapshot, _ tree: String, _ key: [UInt8], _ detail: String) -> FirnError {
        .corrupt(path: snapshot.store.path, page: nil, version: snapshot.version, detail: "\(tree) key \(ByteText.short(key)): \(detail)")
    }

    /// `body`'s decoding defect, named with the tree and key it came from.
    private static func located<R>(_ snapshot: Snapshot, _ tree: String, _ key: [UInt8],
                                   _ body: () throws(FirnError) -> R) throws(FirnError) -> R {
        do { return try body() } catch {
            if case let .corrupt(_, _, _, detail) = error { throw defect(snapshot, tree, key, detail) }
            throw error
        }
    }
}
