import FirnCore

/// Keeps the index trees `idx.<Type>.<property>` (docs/FORMAT.md §12.5) in
/// step with the records: one entry (value ‖ object key) per object and
/// indexed property, written and removed in the same write transaction as
/// the record, so an index never disagrees with a committed version.
extension DatabaseCore {
    /// The entries of a newly stored record.
    func addIndexEntries(_ info: ClassInfo, key: [UInt8], fields: [(tag: Int, type: PropertyType, value: FieldValue?)]) throws(DatabaseError) {
        for field in fields where info.schema.properties[field.tag].isIndexed {
            try addIndexEntry(info, index: field.tag, value: field.value, key: key)
        }
    }

    /// The entries of a record about to be replaced or deleted.
    func removeIndexEntries(_ info: ClassInfo, key: [UInt8], record: [UInt8]) throws(DatabaseError) {
        guard info.schema.properties.contains(where: \.isIndexed) else { return }
        let decoded = try engine { () throws(FirnError) in
            try record.withUnsafeBytes { buffer in Result { () throws(FirnError) in try ObjectRecord.decodeAll(buffer) } }.get()
        }
        for (index, property) in info.schema.properties.enumerated() where property.isIndexed {
            let field = decoded.first { $0.tag == index }
            try removeIndexEntry(info, index: index, value: field.map(\.value) ?? property.absentValue, key: key)
        }
    }

    func addIndexEntry(_ info: ClassInfo, index: Int, value: FieldValue?, key: [UInt8]) throws(DatabaseError) {
        let (tree, entry) = try indexEntry(info, index: index, value: value, key: key)
        _ = try engine { () throws(FirnError) in try tree.put(entry, []) }
    }

    func removeIndexEntry(_ info: ClassInfo, index: Int, value: FieldValue?, key: [UInt8]) throws(DatabaseError) {
        let (tree, entry) = try indexEntry(info, index: index, value: value, key: key)
        _ = try engine { () throws(FirnError) in try tree.delete(entry) }
    }

    private func indexEntry(_ info: ClassInfo, index: Int, value: FieldValue?, key: [UInt8]) throws(DatabaseError) -> (WriteTree, [UInt8]) {
        let property = info.schema.properties[index]
        guard let entry = IndexKey.key(value, as: property.type, objectKey: key) else {
            throw DatabaseError.typeMismatch(type: info.name, property: property.name, expected: "\(property.type)",
                                             found: value.map { "\($0)" } ?? "null")
        }
        let limit = store.geometry.maxKeyLength
        guard entry.count <= limit else {
            throw DatabaseError.invalidValue(
                type: info.name, property: property.name,
                detail: "the indexed value and the object's key take \(entry.count) bytes, more than the key limit of \(limit) (a shorter primary key fits)")
        }
        return (try writeTree(info.schema.indexTreeName(property), operation: "setting \(info.name).\(property.name)"), entry)
    }
}
