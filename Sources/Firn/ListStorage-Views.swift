import FirnCore

/// A `List`'s or `Map`'s elements: held by the instance until its object is
/// added (`unmanaged`), then a view of the stored list (`managed`).
enum ViewStorage<Unmanaged> {
    case unmanaged(Unmanaged)
    case managed(ListStorage)

    /// True when the view reads a fixed version (safe from any thread).
    var isFrozen: Bool {
        if case let .managed(list) = self { return list.source.isFrozen }
        return false
    }

    /// True for a view of a deleted object's elements.
    var isInvalidated: Bool {
        guard case let .managed(list) = self else { return false }
        return list.ownerDeleted
    }
}

/// What `List` and `Map` (and `MutableSet` through its list) do alike with
/// the list storage they view: invalidation, counts, frozen and live copies,
/// and the target of an assignment to the property.
extension ListStorage {
    /// Whether the view's owner is gone (`isInvalidated`).
    var ownerDeleted: Bool {
        source.checkAccess()
        return (try? ownerExists()) != true
    }

    /// The count for a view's `count`; an engine error stops the program.
    var viewCount: Int {
        source.checkAccess()
        do { return try count() } catch { fatalError("Firn: \(name): \(error)") }
    }

    /// This storage at the version its instance reads now, sharing the
    /// version's one `frozen` pin; nil when it is frozen already.
    func frozenCopy() throws(DatabaseError) -> ListStorage? {
        guard let core = source as? DatabaseCore else { return nil }
        let frozen = try core.frozenVersion(operation: "freeze \(name)")
        return ListStorage(source: frozen, owner: owner, ownerKey: ownerKey, index: index)
    }

    /// This storage in the caller's live instance (its actor's, queue's or
    /// thread's): nil when it is live already, `.some(nil)` when its owner
    /// was deleted since.
    func liveCopy() throws(DatabaseError) -> ListStorage?? {
        guard let frozen = source as? FrozenVersion else { return nil }
        let core = try InstanceCache.callersInstance(frozen.configuration)
        try core.catchUp(to: frozen.version)
        let live = ListStorage(source: core, owner: owner, ownerKey: ownerKey, index: index)
        return .some(try live.ownerExists() ? live : nil)
    }

    /// The storage a managed object's list or map property is assigned
    /// through, with its live instance. A setter cannot throw: outside a
    /// write or on a frozen object it stops the program, as every setter does.
    static func assigned(_ access: _ManagedAccess) -> (ListStorage, DatabaseCore) {
        let managed = access.managed
        managed.source.checkAccess()
        let target = ListStorage(source: managed.source, owner: managed.info, ownerKey: managed.key, index: access.index)
        guard let core = managed.source as? DatabaseCore else {
            fatalError("Firn: \(DatabaseError.frozen(type: managed.info.name, operation: "set \(target.property.name)"))")
        }
        guard core.transaction != nil else {
            fatalError("Firn: \(DatabaseError.notInWriteTransaction(operation: "setting \(target.name)"))")
        }
        return (target, core)
    }
}
