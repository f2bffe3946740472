import FirnCore

/// One frozen version as frozen objects and results read it: a share of
/// the process's one `frozen` pin of that version (`Store.sharedSnapshot`).
/// Every frozen object alive adds one to the pin's frozen-object count, so
/// `firn pins` shows exactly how many this process caches. Immutable, so
/// readable from any thread; it outlives the live instance it came from.
///
/// An iteration reads through a view of its own (`view()`): every object
/// retains its source, and one source shared by threads iterating at once
/// had its reference count bounce between them on every object (in a side
/// table, slower still: the live instance refers to it weakly).
final class FrozenVersion: SnapshotTreeSource, @unchecked Sendable {
    let share: SnapshotShare
    let configuration: Configuration
    let infos: [ObjectIdentifier: ClassInfo]
    private let readers = Locked(TreeReaders())
    /// The version this is a view of (nil for the one that owns the share);
    /// held so the share outlives every view.
    private let owner: FrozenVersion?
    /// The pin's frozen-object count, copied into each view: every object
    /// made and released adds to it without touching the shared objects.
    private let frozenObjects: FrozenObjectCounter?

    init(share: SnapshotShare, configuration: Configuration, infos: [ObjectIdentifier: ClassInfo]) {
        self.share = share
        self.configuration = configuration
        self.infos = infos
        owner = nil
        frozenObjects = share.frozenObjects
    }

    private init(viewOf owner: FrozenVersion) {
        share = owner.share
        configuration = owner.configuration
        infos = owner.infos
        self.owner = owner
        frozenObjects = owner.frozenObjects
    }

    deinit { if owner == nil { share.release() } }

    /// Another source reading this version (same share, same pin), for one
    /// iteration's objects.
    func view() -> FrozenVersion { FrozenVersion(viewOf: owner ?? self) }

    var version: UInt64 { share.version }
    var isFrozen: Bool { true }
    var generation: UInt64 { 0 }
    func checkAccess() {}

    func info(_ type: Object.Type) throws(DatabaseError) -> ClassInfo {
        guard let info = infos[ObjectIdentifier(type)] else {
            throw DatabaseError.typeNotInConfiguration(type: String(describing: type))
        }
        return info
    }

    func reader(_ name: String) throws(DatabaseError) -> TreeReader? {
        let snapshot = share.snapshot
        return try readers.withLock { (readers) throws(DatabaseError) in try readers.reader(name, in: snapshot) }
    }

    func objectCreated() { frozenObjects?.add(1) }
    func objectReleased() { frozenObjects?.add(-1) }
}
