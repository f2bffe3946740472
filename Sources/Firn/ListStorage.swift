import FirnCore

/// One list property of one object, in its list tree
/// `list.<Type>.<property>` (docs/FORMAT.md §12.4): the elements are the
/// entries under the owner's key prefix, at positions exactly 0 ..< count.
/// Reads seek (count and `element(at:)` cost one descent each); appending
/// writes one entry, inserting or removing shifts the entries after it.
struct ListStorage {
    let source: any ObjectSource
    let owner: ClassInfo
    let ownerKey: [UInt8]
    let index: Int
    let prefix: [UInt8]

    init(source: any ObjectSource, owner: ClassInfo, ownerKey: [UInt8], index: Int) {
        self.source = source
        self.owner = owner
        self.ownerKey = ownerKey
        self.index = index
        prefix = ListKey.prefix(ownerKey)
    }

    var property: PropertySchema { owner.schema.properties[index] }
    var treeName: String { owner.schema.listTreeName(property) }
    /// "Person.dogs", for messages.
    var name: String { "\(owner.name).\(property.name)" }

    // MARK: reading

    func count() throws(DatabaseError) -> Int {
        guard let cursor = try source.cursor(in: treeName) else { return 0 }
        return try engine { () throws(FirnError) -> Int in try cursor.listCount(prefix: prefix) }
    }

    /// The element at `position`, nil when the list has none there (for a
    /// map, the value of the entry there).
    func element(at position: Int) throws(DatabaseError) -> FieldValue?? {
        guard let bytes = try storedBytes(at: position) else { return nil }
        let property = property
        return .some(try engine { () throws(FirnError) in
            try bytes.withBytes { (b) throws(FirnError) in try ListElement.decode(b, of: property) }
        })
    }

    /// The stored value of the entry at `position`, nil when there is none.
    func storedBytes(at position: Int) throws(DatabaseError) -> RecordBytes? {
        guard position >= 0, position < ListKey.maximumCount else { return nil }
        return try source.value(in: treeName, key: ListKey.key(prefix: prefix, position))
    }

    /// Whether the owner still exists in the source's version.
    func ownerExists() throws(DatabaseError) -> Bool { try source.record(owner, key: ownerKey) != nil }

    // MARK: writing (a live instance's write transaction)

    /// The live instance to write through; throws when the list is frozen,
    /// outside a write, or its owner was deleted.
    /// `ownerStored` is false only while `add` stores the owner's properties
    /// (its record is written after them).
    func writer(_ operation: String, ownerStored: Bool = true) throws(DatabaseError) -> (DatabaseCore, WriteTree) {
        source.checkAccess()
        guard let core = source as? DatabaseCore else { throw DatabaseError.frozen(type: name, operation: operation) }
        let tree = try core.writeTree(treeName, operation: "\(operation) \(name)")
        if ownerStored, try !ownerExists() { throw DatabaseError.invalidatedObject(type: owner.name) }
        return (core, tree)
    }

    private func key(_ position: Int) -> [UInt8] { ListKey.key(prefix: prefix, position) }

    private func checkedKey(_ position: Int, _ core: DatabaseCore) throws(DatabaseError) -> [UInt8] {
        let key = key(position)
        let limit = core.store.geometry.maxKeyLength
        guard key.count <= limit else {
            throw DatabaseError.invalidValue(type: owner.name, property: property.name,
                                             detail: "the owner's key is too long for a list entry (\(key.count) bytes, the limit is \(limit))")
        }
        return key
    }

    /// `value` as a list element of this property (a map entry's value part, for a map).
    func encode(_ value: FieldValue?) throws(DatabaseError) -> [UInt8] {
        if value == nil, !property.isOptional {
            throw DatabaseError.typeMismatch(type: owner.name, property: property.name, expected: property.elementDescription, found: "nil")
        }
        guard let bytes = ListElement.encode(value, as: property.type) else {
            throw DatabaseError.typeMismatch(type: owner.name, property: property.name, expected: property.elementDescription,
                                             found: value.map { "\($0)" } ?? "nil")
        }
        return bytes
    }

    private func stored(_ tree: WriteTree, _ position: Int) throws(DatabaseError) -> [UInt8] {
        guard let bytes = try engine({ () throws(FirnError) in try tree.get(key(position)) }) else {
            throw DatabaseError.engine(.corrupt(path: "", page: nil, version: nil, detail: "\(treeName): position \(position) of a list is missing"))
        }
        return bytes
    }

    /// Puts the elements `values` (already encoded) at `start…`.
    private func put(_ tree: WriteTree, _ core: DatabaseCore, _ values: [[UInt8]], from start: Int) throws(DatabaseError) {
        for (offset, bytes) in values.enumerated() {
            let key = try checkedKey(start + offset, core)
            _ = try engine { () throws(FirnError) in try tree.put(key, bytes) }
        }
    }

    func insert(_ values: [FieldValue?], at position: Int, _ core: DatabaseCore, _ tree: WriteTree) throws(DatabaseError) {
        guard !values.isEmpty else { return }
        let count = try count()
        guard position >= 0, position <= count else {
            throw DatabaseError.listIndexOutOfRange(type: owner.name, property: property.name, index: position, count: count)
        }
        guard count <= ListKey.maximumCount - values.count else {
            throw DatabaseError.invalidValue(type: owner.name, property: property.name, detail: "a list holds at most \(ListKey.maximumCount) elements")
        }
        var encoded: [[UInt8]] = []
        for value in values { encoded.append(try encode(value)) }
        try insert(encoded: encoded, at: position, count: count, core, tree)
    }

    /// Inserts already encoded entries (a map's, `Map.swift`) at `position`
    /// of a list of `count` entries.
    func insert(encoded: [[UInt8]], at position: Int, count: Int, _ core: DatabaseCore, _ tree: WriteTree) throws(DatabaseError) {
        guard count <= ListKey.maximumCount - encoded.count else {
            throw DatabaseError.invalidValue(type: owner.name, property: property.name, detail: "a list holds at most \(ListKey.maximumCount) elements")
        }
        let values = encoded
        // Shift the tail up, last first, so no entry is overwritten before it moved.
        var from = count - 1
        while from >= position {
            let bytes = try stored(tree, from)
            try put(tree, core, [bytes], from: from + values.count)
            from -= 1
        }
        try put(tree, core, encoded, from: position)
    }

    func remove(at position: Int, _ tree: WriteTree) throws(DatabaseError) {
        let count = try count()
        guard position >= 0, position < count else {
            throw DatabaseError.listIndexOutOfRange(type: owner.name, property: property.name, index: position, count: count)
        }
        for from in (position + 1)..<max(count, position + 1) {
            let bytes = try stored(tree, from)
            let key = key(from - 1)
            _ = try engine { () throws(FirnError) in try tree.put(key, bytes) }
        }
        let last = key(count - 1)
        _ = try engine { () throws(FirnError) in try tree.delete(last) }
    }

    func replace(at position: Int, with value: FieldValue?, _ tree: WriteTree) throws(DatabaseError) {
        let count = try count()
        guard position >= 0, position < count else {
            throw DatabaseError.listIndexOutOfRange(type: owner.name, property: property.name, index: position, count: count)
        }
        try replace(at: position, encoded: try encode(value), tree)
    }

    /// Puts the already encoded entry `bytes` at `position` (which exists).
    func replace(at position: Int, encoded bytes: [UInt8], _ tree: WriteTree) throws(DatabaseError) {
        let key = key(position)
        _ = try engine { () throws(FirnError) in try tree.put(key, bytes) }
    }

    func move(from: Int, to: Int, _ core: DatabaseCore, _ tree: WriteTree) throws(DatabaseError) {
        let count = try count()
        for position in [from, to] where position < 0 || position >= count {
            throw DatabaseError.listIndexOutOfRange(type: owner.name, property: property.name, index: position, count: count)
        }
        guard from != to else { return }
        let moving = try stored(tree, from)
        // Shift the elements between the two positions by one towards `from`.
        let step = from < to ? 1 : -1
        var position = from
        while position != to {
            let bytes = try stored(tree, position + step)
            try put(tree, core, [bytes], from: position)
            position += step
        }
        try put(tree, core, [moving], from: to)
    }

    /// Deletes every element (the owner is being deleted or its list replaced).
    func removeAll(_ core: DatabaseCore) throws(DatabaseError) {
        guard let transaction = core.transaction,
              let tree = try engine({ () throws(FirnError) in try transaction.tree(treeName, create: false) }) else { return }
        let count = try count()
        for position in 0..<count {
            let key = key(position)
            _ = try engine { () throws(FirnError) in try tree.delete(key) }
        }
    }
}

extension Cursor {
    /// How many elements the list whose keys start with `prefix` has: one
    /// seek past its run (positions are exactly 0 ..< count, FORMAT.md §12.4).
    func listCount(prefix: [UInt8]) throws(FirnError) -> Int {
        try seek(ListKey.key(prefix: prefix, ListKey.maximumCount))
        if isValid { try previous() } else { try last() }
        guard let position = try withKey({ ListKey.position($0, prefix: prefix) }) ?? nil else { return 0 }
        return position + 1
    }
}
