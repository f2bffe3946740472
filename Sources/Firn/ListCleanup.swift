import FirnCore

/// A deleted object leaves every list of objects that held it, as in
/// Realm: a list never holds an element that reads as nothing; a map keeps
/// the key with a null value (Realm's rule for dictionaries). Links need
/// no such step (they read nil once their target is gone).
extension DatabaseCore {
    /// Removes the objects `keys` of `target` from every list of objects
    /// of its type. Without back-references this scans each list tree whose
    /// elements are `target` objects, once for all the keys: the cost of a
    /// delete grows with the elements of those lists (docs/FORMAT.md §12.4).
    func removeFromLists(_ target: ClassInfo, keys: Set<[UInt8]>) throws(DatabaseError) {
        guard let transaction, !keys.isEmpty else { return }
        var elements = Set<[UInt8]>()
        for key in keys { if let element = ListElement.encode(.link(key), as: .object) { elements.insert(element) } }
        for owner in infos.values {
            for (index, property) in owner.schema.properties.enumerated() where property.isList && property.objectType == target.name {
                let name = owner.schema.listTreeName(property)
                guard let tree = try engine({ () throws(FirnError) in try transaction.tree(name, create: false) }), tree.count > 0 else { continue }
                var hits: [(owner: [UInt8], position: Int)] = []
                try engine { () throws(FirnError) in
                    let cursor = try tree.cursor()
                    try cursor.first()
                    while cursor.isValid {
                        // A map entry's value is the list element after its key (MapEntry).
                        let test = { (value: UnsafeRawBufferPointer) -> Bool in
                            property.isMap ? ((try? MapEntry.split(value)).map { elements.contains(Array($0.element)) } ?? false)
                                : elements.contains(Array(value))
                        }
                        var holds = try cursor.withInlineValue(test)
                        // A long key can put a map entry out of line (a list of objects' elements are always inline).
                        if holds == nil, property.isMap, let value = try cursor.value { holds = value.withUnsafeBytes(test) }
                        if holds == true, let entry = try cursor.key {
                            let hit = try entry.withUnsafeBytes { buffer in
                                Result { () throws(FirnError) -> (owner: [UInt8], position: Int) in
                                    let decoded = try ListKey.decode(buffer)
                                    return (Array(decoded.owner), decoded.position)
                                }
                            }.get()
                            hits.append(hit)
                        }
                        try cursor.next()
                    }
                }
                // A map keeps the key, its value now null (as Realm does):
                // nothing shifts, and the key order holds.
                if property.isMap {
                    for hit in hits {
                        let list = ListStorage(source: self, owner: owner, ownerKey: hit.owner, index: index)
                        guard let entry = try list.mapEntry(at: hit.position), let null = ListElement.encode(nil, as: property.type) else { continue }
                        try list.replace(at: hit.position, encoded: MapEntry.encode(key: entry.key, element: null), tree)
                    }
                    continue
                }
                // Last first: removing shifts only the positions after it
                // (hits are in key order: by owner, then position).
                for hit in hits.reversed() {
                    try ListStorage(source: self, owner: owner, ownerKey: hit.owner, index: index).remove(at: hit.position, tree)
                }
            }
        }
    }
}
