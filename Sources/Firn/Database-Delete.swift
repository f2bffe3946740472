/// Deleting many objects at once, as Realm's `delete(_:)` of a sequence and
/// `deleteAll()`. Each object leaves the lists that held it, with one scan
/// of each such list tree per call rather than per object.
extension Database {
    /// Deletes every object of `objects` (results, a list's objects, an
    /// array…). The sequence is read to its end before anything is deleted,
    /// so deleting the live results being read is safe; objects already
    /// deleted are skipped. Throws, deleting nothing, when one of them is
    /// unmanaged, frozen or from another database.
    public func delete<S: Sequence>(_ objects: S) throws(DatabaseError) where S.Element: Object {
        let core = try writer("delete objects")
        core.checkAccess()
        if let results = objects as? Results<S.Element> {
            return try core.deleteKeys(try core.info(S.Element.self), try results.keysToDelete(by: core))
        }
        // Grouped by class (a sequence of a superclass may hold several).
        var groups: [ObjectIdentifier: (info: ClassInfo, keys: [[UInt8]])] = [:]
        for object in Array(objects) {
            let info = try core.info(type(of: object))
            groups[ObjectIdentifier(type(of: object)), default: (info, [])].keys.append(try core.deletableKey(object, info))
        }
        for group in groups.values { try core.deleteKeys(group.info, group.keys) }
    }

    /// Deletes every object of every type in the configuration.
    public func deleteAll() throws(DatabaseError) {
        let core = try writer("delete objects")
        core.checkAccess()
        guard core.transaction != nil else { throw DatabaseError.notInWriteTransaction(operation: "deleteAll()") }
        for info in core.infos.values.sorted(by: { $0.name < $1.name }) {
            try core.deleteKeys(info, try QueryPlan().matchingKeys(core, info))
        }
    }
}

extension Results {
    /// The keys of these results, for `core` to delete: they must be its own.
    func keysToDelete(by core: DatabaseCore) throws(DatabaseError) -> [[UInt8]] {
        guard source === core else {
            if source.isFrozen { throw DatabaseError.frozen(type: "Results<\(Element.self)>", operation: "delete them") }
            throw DatabaseError.objectFromAnotherDatabase(type: "\(Element.self)")
        }
        let info = try core.info(Element.self)
        // No plan: every key of the type's tree (the empty plan's matches).
        return try (plan ?? QueryPlan()).matchingKeys(core, info)
    }
}
