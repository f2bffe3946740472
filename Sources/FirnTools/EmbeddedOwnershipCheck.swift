import FirnCore
/// `verify`'s check of embedded objects (docs/FORMAT.md §12.7): each object
/// of an embedded type is held by exactly one link field or list element,
/// and following its owners up ends at an object of a top-level type.
/// Links and elements naming no object are not counted (a link to a
/// deleted object reads null, §12.2).
enum EmbeddedOwnershipCheck {
    /// Who holds an embedded object: the owner's type and key, and where (for messages).
    private struct Owner {
        let type: String
        let key: [UInt8]
        let place: String
    }

    static func check(_ schemas: [ObjectSchema], _ snapshot: Snapshot) throws(FirnError) {
        let embedded = Set(schemas.filter(\.isEmbedded).map(\.name))
        guard !embedded.isEmpty else { return }
        var owners: [String: [[UInt8]: Owner]] = [:]
        func claim(_ type: String, _ key: [UInt8], _ owner: Owner) throws(FirnError) {
            if let first = owners[type]?[key] {
                throw defect(snapshot, "embedded \(type) object \(ByteText.short(key)) is held by both \(first.place) and \(owner.place) (one owner expected)")
            }
            owners[type, default: [:]][key] = owner
        }
        for schema in schemas {
            // The link fields of this type that hold embedded objects: one
            // walk of its objects reads them all.
            var links: [(tag: Int, property: PropertySchema, target: String)] = []
            for (tag, property) in schema.properties.enumerated() {
                guard let target = property.objectType, embedded.contains(target) else { continue }
                guard property.isList else {
                    links.append((tag, property, target))
                    continue
                }
                let name = schema.listTreeName(property)
                guard let list = try snapshot.tree(name) else { continue }
                let cursor = list.cursor()
                try cursor.first()
                while cursor.isValid {
                    guard let key = try cursor.key, let value = try cursor.value else { break }
                    let (owner, element) = try withBytes(key) { (keyBytes) throws(FirnError) in
                        try withBytes(value) { (valueBytes) throws(FirnError) in
                            (Array(try ListKey.decode(keyBytes).owner), try ListElement.decode(valueBytes, of: property))
                        }
                    }
                    if case let .link(child)? = element {
                        try claim(target, child, Owner(type: schema.name, key: owner, place: "\(name) key \(ByteText.short(key))"))
                    }
                    try cursor.next()
                }
            }
            guard !links.isEmpty, let objects = try snapshot.tree(schema.treeName) else { continue }
            let cursor = objects.cursor()
            try cursor.first()
            while cursor.isValid {
                guard let key = try cursor.key, let record = try cursor.value else { break }
                for link in links {
                    let field = try withBytes(record) { (bytes) throws(FirnError) in
                        try ObjectRecord.value(link.tag, as: link.property.type, in: bytes)
                    }
                    if case let .link(child)? = field {
                        try claim(link.target, child, Owner(type: schema.name, key: key,
                                                            place: "\(schema.name).\(link.property.name) of \(ByteText.short(key))"))
                    }
                }
                try cursor.next()
            }
        }
        // Every embedded object has an owner, and the owners' chain ends at
        // a top-level object (no ring of embedded objects holding each other).
        let total = owners.values.reduce(0) { $0 + $1.count }
        for type in embedded.sorted() {
            guard let objects = try snapshot.tree(ObjectSchema.objectTreePrefix + type) else { continue }
            let cursor = objects.cursor()
            try cursor.first()
            while cursor.isValid {
                guard let key = try cursor.key else { break }
                var (currentType, currentKey, steps) = (type, key, 0)
                while embedded.contains(currentType) {
                    guard let owner = owners[currentType]?[currentKey] else {
                        throw defect(snapshot, "embedded \(currentType) object \(ByteText.short(currentKey)) is held by no link or list element"
                                     + (currentType == type ? "" : " (it holds embedded \(type) \(ByteText.short(key)))"))
                    }
                    steps += 1
                    guard steps <= total else {
                        throw defect(snapshot, "embedded \(type) object \(ByteText.short(key)) is in a ring of embedded objects owning each other")
                    }
                    (currentType, currentKey) = (owner.type, owner.key)
                }
                try cursor.next()
            }
        }
    }

    private static func defect(_ snapshot: Snapshot, _ detail: String) -> FirnError {
        .corrupt(path: snapshot.store.path, page: nil, version: snapshot.version, detail: detail)
    }
}
