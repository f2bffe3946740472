import FirnCore

/// A change inside an embedded object is a change of its owner (as Realm
/// reports it): an observer of the owner hears the property holding it
/// named, with no values (as for a list). Embedded objects are records of
/// their own type (docs/FORMAT.md §12.7), so the step's diff is read for
/// each embedded object the owner holds in the new version, nested ones too.
extension VersionChanges {
    /// The names of `info`'s embedded properties (links and lists of
    /// embedded objects) whose objects changed inside, leaving out `skip`
    /// (those already reported for their own field or elements).
    func embeddedChanges(_ info: ClassInfo, key: [UInt8], core: DatabaseCore, skip: Set<String>) throws(FirnError) -> [String] {
        var names: [String] = []
        for property in info.schema.properties where !skip.contains(property.name) {
            guard let target = core.embeddedTarget(property) else { continue }
            for child in try heldKeys(info, key: key, property: property)
            where try embeddedChanged(target, key: child, core: core) {
                names.append(property.name)
                break
            }
        }
        return names
    }

    /// Whether the embedded object `key` of `info` or anything it holds changed.
    private func embeddedChanged(_ info: ClassInfo, key: [UInt8], core: DatabaseCore) throws(FirnError) -> Bool {
        let tree = info.schema.treeName
        if try touched(tree) {
            let new = try self.new.tree(tree)?.get(key)
            let old = try self.old.tree(tree)?.get(key)
            if new?.array != old?.array { return true }
        }
        for property in info.schema.properties where property.isList {
            let list = info.schema.listTreeName(property)
            if try touched(list), try hasChange(in: list, withPrefix: ListKey.prefix(key)) { return true }
        }
        return try !embeddedChanges(info, key: key, core: core, skip: []).isEmpty
    }

    /// The keys the object `key` of `info` links to through `property` in the new version.
    private func heldKeys(_ info: ClassInfo, key: [UInt8], property: PropertySchema) throws(FirnError) -> [[UInt8]] {
        if property.isList {
            guard let tree = try new.tree(info.schema.listTreeName(property)) else { return [] }
            let prefix = ListKey.prefix(key)
            let cursor = tree.cursor()
            try cursor.seek(prefix)
            var keys: [[UInt8]] = []
            while cursor.isValid, let entry = try cursor.key, entry.starts(with: prefix) {
                if let bytes = try cursor.value,
                   case let .link(child)? = try bytes.withUnsafeBytes({ buffer in
                       Result { () throws(FirnError) in try ListElement.decode(buffer, of: property) }
                   }).get() {
                    keys.append(child)
                }
                try cursor.next()
            }
            return keys
        }
        guard let index = info.schema.properties.firstIndex(of: property),
              let record = try new.tree(info.schema.treeName)?.get(key) else { return [] }
        guard case let .link(child)? = try ObjectRecord.value(index, as: property.type, in: record.bytes) else { return [] }
        return [child]
    }
}
