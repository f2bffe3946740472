import FirnCore

/// Link properties of a managed object: the field holds the target's key;
/// reading resolves it in the object's own source (so a frozen object's
/// links are frozen too), writing adds an unmanaged target first.
extension ManagedObject {
    /// The stored value of property `index` (nil when null or absent). A
    /// getter cannot throw: a deleted object or an unreadable record stops
    /// the program with the reason, as `read` does.
    func fieldValue(_ index: Int) -> FieldValue? {
        source.checkAccess()
        let property = info.schema.properties[index]
        do {
            guard let record = try record() else {
                fatalError("Firn: \(DatabaseError.invalidatedObject(type: info.name)) (reading \(property.name))")
            }
            return try engine { () throws(FirnError) in
                try record.withBytes { bytes throws(FirnError) in try ObjectRecord.value(index, as: property.type, in: bytes) }
            }
        } catch {
            fatalError("Firn: \(info.name).\(property.name): \(error)")
        }
    }

    /// The object link property `index` points to, nil when it is null or
    /// its target no longer exists in this source's version.
    func linked<T: Object>(_ index: Int, as type: T.Type) -> T? {
        guard case let .link(key)? = fieldValue(index) else { return nil }
        do {
            return try source.resolve(type, key: key)
        } catch {
            fatalError("Firn: \(info.name).\(info.schema.properties[index].name): \(error)")
        }
    }

    /// Points link property `index` at `target` (nil clears it). Like every
    /// setter: outside a write or on a frozen object it stops the program;
    /// a target that cannot be linked (frozen, another instance's, a
    /// duplicate primary key when added) fails the commit.
    func writeLink(_ index: Int, _ target: Object?) {
        let (core, property) = settable(index)
        do {
            // An embedded object held here is deleted once it is replaced
            // (it has no other owner, FORMAT.md §12.7).
            var previous: FieldValue?
            let embedded = core.embeddedTarget(property)
            if embedded != nil, let record = try record() {
                previous = try engine { () throws(FirnError) in
                    try record.withBytes { bytes throws(FirnError) in try ObjectRecord.value(index, as: property.type, in: bytes) }
                }
            }
            // The embedded object held here, assigned again: kept, as in Realm.
            if let held = target?.managed, held.source === core, case let .link(old)? = previous, old == held.key { return }
            var field: FieldValue?
            if let target {
                let context = _StoreContext(core: core, update: .error, operation: "link it from \(info.name).\(property.name)",
                                            owner: nil, ownerKey: [], index: index)
                field = .link(try core.linkKey(to: target, context))
            }
            try core.update(info, key: key, index: index, field: PersistedField(field))
            if case let .link(old)? = previous, previous != field { try core.deleteEmbedded(embedded, [old]) }
        } catch {
            core.defer(error)
        }
    }
}
