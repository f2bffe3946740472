import FirnCore

/// A deleted object leaves every list of objects that held it, as in
/// Realm: a list never holds an element that reads as nothing. Links need
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
                        if try cursor.withInlineValue({ elements.contains(Array($0)) }) == true, let entry = try cursor.key {
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
                // Last first: removing shifts only the positions after it
                // (hits are in key order: by owner, then position).
                for hit in hits.reversed() {
                    try ListStorage(source: self, owner: owner, ownerKey: hit.owner, index: index).remove(at: hit.position, tree)
                }
            }
        }
    }
}
