import FirnCore

/// Hands one live object, or live results, to another thread, queue or
/// actor: `Sendable`, resolved exactly once with `Database.resolve(_:)` on
/// the receiving side. Until then it pins the version it was made at, as
/// kind `threadSafeReference` labelled with the file and line that made it
/// (what `firn pins` shows); resolving, or dropping every copy, releases it.
///
/// ```swift
/// let ref = try ThreadSafeReference(to: dog)
/// queue.async {
///     let db = try! Database(configuration: config, queue: queue)
///     guard let dog = try? db.resolve(ref) else { return }  // nil: deleted meanwhile
/// }
/// ```
///
/// Copies share one pin and one resolution: the second resolve of any copy
/// throws `.referenceAlreadyResolved`.
public struct ThreadSafeReference<Confined>: Sendable {
    let pin: ReferencePin
    let info: ClassInfo
    /// The object's key; nil for results.
    let key: [UInt8]?
    /// The query of results (nil: every object of the type, in key order).
    let plan: QueryPlan?

    /// The version the reference was made at, or, made in a write
    /// transaction, the version that write commits.
    var version: UInt64 { pin.version }
}

extension ThreadSafeReference where Confined: Object {
    /// A reference to `object`, a managed object (live, or frozen: it then
    /// resolves to the live counterpart). Made on the object's thread.
    public init(to object: Confined, file: StaticString = #fileID, line: UInt = #line) throws(DatabaseError) {
        let typeName = String(describing: type(of: object))
        guard let managed = object.managed else {
            throw DatabaseError.unmanagedObject(type: typeName, operation: "make a ThreadSafeReference to it")
        }
        if object.isInvalidated {
            if managed.session != managed.source.session { throw DatabaseError.invalidatedInstance(type: typeName) }
            throw DatabaseError.invalidatedObject(type: typeName)
        }
        pin = try ReferencePin(source: managed.source, madeAt: ReferencePin.label(file, line))
        info = managed.info
        key = managed.key
        plan = nil
    }
}

extension ThreadSafeReference {
    /// A reference to `results`: resolves to the same results (the same
    /// query and order) in the resolving instance, read live there.
    public init<Element: Object>(to results: Results<Element>, file: StaticString = #fileID, line: UInt = #line)
        throws(DatabaseError) where Confined == Results<Element> {
        results.source.checkAccess()
        pin = try ReferencePin(source: results.source, madeAt: ReferencePin.label(file, line))
        info = try results.source.info(Element.self)
        key = nil
        plan = results.plan
    }
}

/// The pin of a `ThreadSafeReference` and its one resolution. A class so
/// that copies of the reference share them; the pin goes with the last copy.
final class ReferencePin: Sendable {
    let path: String
    let version: UInt64
    /// "File.swift:12", where the reference was made.
    let madeAt: String
    /// The `threadSafeReference` pin, until the reference is resolved.
    private let snapshot: Locked<Snapshot?>
    private let resolved = Locked(false)

    /// Pins the version `source` reads (for a live instance in a write: the
    /// version its write started from, while the reference refers to the one
    /// it commits), alongside the pin that already keeps it readable.
    init(source: any ObjectSource, madeAt: String) throws(DatabaseError) {
        let pinned: Snapshot
        switch source {
        case let core as DatabaseCore:
            core.checkAccess()
            version = try core.referenceVersion
            pinned = try core.readSnapshot
        case let frozen as FrozenVersion:
            version = frozen.version
            pinned = frozen.share.snapshot
        default:
            throw DatabaseError.engine(.misuse("a ThreadSafeReference needs a live or frozen database"))
        }
        let store = pinned.store
        path = store.path
        self.madeAt = madeAt
        // Another pin on a version pinned already: it adds no version, so
        // maximumNumberOfActiveVersions has nothing to check.
        let snapshot = try engine { () throws(FirnError) in
            try store.snapshot(alongside: pinned, kind: .threadSafeReference, label: madeAt)
        }
        self.snapshot = Locked(snapshot)
    }

    deinit { release() }

    /// Marks the reference resolved, once: false when it already was.
    func resolve() -> Bool {
        resolved.withLock { resolved in
            defer { resolved = true }
            return !resolved
        }
    }

    /// Releases the pin (idempotent).
    func release() {
        snapshot.withLock { snapshot in
            defer { snapshot = nil }
            return snapshot
        }?.close()
    }

    /// The pin's label: `#fileID:line`, without the module when that would
    /// not fit the reader slot's 64-byte label (the line must stay).
    static func label(_ file: StaticString, _ line: UInt) -> String {
        let fileID = "\(file)"
        let full = "\(fileID):\(line)"
        guard full.utf8.count > 64, let slash = fileID.lastIndex(of: "/") else { return full }
        return "\(fileID[fileID.index(after: slash)...]):\(line)"
    }
}
