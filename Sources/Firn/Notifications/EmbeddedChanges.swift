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

/// The same for an observer of results: the objects of the results' type
/// whose embedded objects (directly, nested, or in a list) changed inside
/// are modifications. With no back-reference from an embedded object to
/// its owner, the changed keys are found from the diffs of the embedded
/// types' trees, then their holders by one walk of each holding tree (the
/// holder's records for a link, its list tree for a list), level by level
/// up to the results' type; a step that touched no embedded tree reachable
/// from it costs a look at the catalog diff only.
extension VersionChanges {
    func ownersOfChangedEmbedded(_ info: ClassInfo, core: DatabaseCore) throws(FirnError) -> Set<[UInt8]> {
        if let known = embeddedOwners[info.name] { return known }
        let owners = try findOwnersOfChangedEmbedded(info, core: core)
        embeddedOwners[info.name] = owners
        return owners
    }

    private func findOwnersOfChangedEmbedded(_ info: ClassInfo, core: DatabaseCore) throws(FirnError) -> Set<[UInt8]> {
        // The embedded types reachable from `info`, and which changed directly.
        var reachable: [String: ClassInfo] = [:]
        var pending = [info]
        while let type = pending.popLast() {
            for property in type.schema.properties {
                guard let target = core.embeddedTarget(property), reachable[target.name] == nil else { continue }
                reachable[target.name] = target
                pending.append(target)
            }
        }
        var changed: [String: Set<[UInt8]>] = [:]
        for (name, type) in reachable {
            let direct = try directlyChanged(type)
            if !direct.isEmpty { changed[name] = direct }
        }
        guard !changed.isEmpty else { return [] }
        // An embedded object holding a changed one changed too: up the
        // nesting until no holder is new (a type may hold its own type).
        var frontier = changed
        while !frontier.isEmpty {
            var next: [String: Set<[UInt8]>] = [:]
            for (name, holder) in reachable {
                let found = try holders(holder, of: frontier, core: core).subtracting(changed[name] ?? [])
                guard !found.isEmpty else { continue }
                changed[name, default: []].formUnion(found)
                next[name] = found
            }
            frontier = next
        }
        return try holders(info, of: changed, core: core)
    }

    /// The embedded objects of `info` whose record or list elements changed.
    private func directlyChanged(_ info: ClassInfo) throws(FirnError) -> Set<[UInt8]> {
        var keys = Set<[UInt8]>()
        let tree = info.schema.treeName
        if try touched(tree) { for change in try changes(in: tree) { keys.insert(change.key) } }
        for property in info.schema.properties where property.isList {
            let list = info.schema.listTreeName(property)
            guard try touched(list) else { continue }
            for change in try changes(in: list) {
                keys.insert(try change.key.withUnsafeBytes { bytes in
                    Result { () throws(FirnError) in Array(try ListKey.decode(bytes).owner) }
                }.get())
            }
        }
        return keys
    }

    /// The objects of `info` that hold, in the new version, one of the
    /// embedded objects `keys` names (by type name) through a link or list.
    private func holders(_ info: ClassInfo, of keys: [String: Set<[UInt8]>], core: DatabaseCore) throws(FirnError) -> Set<[UInt8]> {
        var found = Set<[UInt8]>()
        for (index, property) in info.schema.properties.enumerated() {
            guard let target = core.embeddedTarget(property), let wanted = keys[target.name], !wanted.isEmpty else { continue }
            let tree = property.isList ? info.schema.listTreeName(property) : info.schema.treeName
            guard let reader = try new.tree(tree) else { continue }
            let cursor = reader.cursor()
            try cursor.first()
            var failure: FirnError?
            try cursor.forEachEntry { key, value, _ in
                do throws(FirnError) {
                    let held = property.isList ? try ListElement.decode(value, of: property)
                                               : try ObjectRecord.value(index, as: property.type, in: value)
                    guard case let .link(child)? = held, wanted.contains(child) else { return true }
                    found.insert(property.isList ? Array(try ListKey.decode(key).owner) : Array(key))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
        }
        return found
    }
}
