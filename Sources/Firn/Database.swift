import Dispatch
import FirnCore

/// A database instance bound to the thread that made it, to a serial
/// queue (`init(configuration:queue:)`) or to the calling actor
/// (`Database.open(configuration:)`). Making one with the same
/// configuration and binding returns the same instance; using it, its
/// results or its objects anywhere else stops the program ("Database
/// accessed from incorrect thread", naming both sides). `freeze()` gives a
/// frozen one, readable from any thread.
///
/// ```swift
/// let db = try Database(configuration: Configuration(path: "app.firn", objectTypes: [Dog.self]))
/// try db.write { try db.add(Dog()) }
/// let dogs = db.objects(Dog.self)
/// ```
///
/// Sendable so that the mistake is caught where it happens: every use
/// checks the binding (one comparison) instead of the compiler refusing
/// the hand-over that frozen values and thread-safe references make fine.
public struct Database: @unchecked Sendable {
    /// What the instance reads through.
    enum Instance {
        /// A live instance, bound to a thread or a serial queue.
        case live(DatabaseCore)
        /// One version, readable from any thread (`freeze()`).
        case frozen(FrozenVersion)
    }

    let instance: Instance

    /// The calling thread's instance (with `autorefresh`, an instance asked
    /// for again moves to the latest version: docs/SDK.md).
    public init(configuration: Configuration) throws(DatabaseError) {
        let core = try InstanceCache.instance(configuration)
        try core.obtained()
        instance = .live(core)
    }

    /// The instance bound to the serial `queue`: usable from whichever
    /// thread runs `queue`'s blocks, nowhere else. Call it on `queue`
    /// (elsewhere it stops the program like any use off the binding). A
    /// concurrent queue is not supported: its blocks would race.
    public init(configuration: Configuration, queue: DispatchQueue) throws(DatabaseError) {
        let identity = QueueIdentity(queue)
        if !identity.isCurrent { InstanceBinding.queue(identity).failIncorrectThread() }
        let core = try InstanceCache.instance(configuration, queue: identity)
        try core.obtained()
        instance = .live(core)
    }

    init(core: DatabaseCore) { instance = .live(core) }

    /// The live instance; callers have one (`Database(configuration:)`).
    var core: DatabaseCore {
        switch instance {
        case let .live(core): return core
        case .frozen: fatalError("Firn: internal: a frozen Database has no live instance")
        }
    }

    /// Where objects and results of this instance read.
    var source: any ObjectSource {
        switch instance {
        case let .live(core): return core
        case let .frozen(frozen): return frozen
        }
    }

    public var configuration: Configuration {
        switch instance {
        case let .live(core): return core.configuration
        case let .frozen(frozen): return frozen.configuration
        }
    }

    /// True for a frozen instance (safe from any thread).
    public var isFrozen: Bool {
        if case .frozen = instance { return true }
        return false
    }

    /// Writes the version this instance reads to a new file at `path`,
    /// packed (no free pages), synced and verified, with the same image
    /// writer as `firn compact`. An existing file is never replaced
    /// (`.engine(.cannotCreate)`); inside a write transaction this throws
    /// `.alreadyInWriteTransaction` (the copy would miss its changes).
    public func writeCopy(toFile path: String) throws(DatabaseError) {
        let snapshot: Snapshot
        switch instance {
        case let .live(core):
            core.checkAccess()
            guard !core.isInWriteTransaction else { throw DatabaseError.alreadyInWriteTransaction }
            snapshot = try core.readSnapshot
        case let .frozen(frozen):
            snapshot = frozen.share.snapshot
        }
        _ = try engine { () throws(FirnError) in try snapshot.store.writeCopy(of: snapshot, to: path) }
    }

    /// The version this instance reads. After `invalidate()` this pins the
    /// latest version again (and stops the program if that fails).
    public var version: UInt64 {
        switch instance {
        case let .live(core):
            core.checkAccess()
            do { return try core.version } catch { fatalError("Firn: \(error)") }
        case let .frozen(frozen): return frozen.version
        }
    }

    /// A read-only view of the engine file underneath: versions, pins,
    /// snapshots (diagnostics). Writes go through the `Database`.
    public var store: StoreView { StoreView(store: engineStore) }

    /// The engine store itself, for this package's demo and tests.
    package var engineStore: Store {
        switch instance {
        case let .live(core): return core.store
        case let .frozen(frozen): return frozen.share.snapshot.store
        }
    }

    public var isInWriteTransaction: Bool {
        guard case let .live(core) = instance else { return false }
        core.checkAccess()
        return core.isInWriteTransaction
    }

    /// Whether the instance moves to the latest version by itself (default
    /// true): when asked for again with `Database(configuration:)` or
    /// `Database(configuration:queue:)` outside a write. A write always
    /// starts at the latest version. Frozen instances: always false, and
    /// setting it does nothing. See docs/SDK.md.
    public var autorefresh: Bool {
        get {
            guard case let .live(core) = instance else { return false }
            core.checkAccess()
            return core.autorefresh
        }
        nonmutating set {
            guard case let .live(core) = instance else { return }
            core.checkAccess()
            core.autorefresh = newValue
        }
    }

    /// Moves this instance's read pin to the latest version; true when the
    /// version changed. Objects and results read the new version from then
    /// on. A frozen instance does not move (false).
    @discardableResult
    public func refresh() throws(DatabaseError) -> Bool {
        guard case let .live(core) = instance else { return false }
        let moved = try core.refresh()
        // Observers hear of what the instance moved past (docs/SDK.md "Notifications").
        core.notifier?.deliver()
        return moved
    }

    /// Releases the read pin (cancelling a write transaction in progress):
    /// objects read through this instance so far are invalidated (reading
    /// one stops the program, `isInvalidated` is true); results stay usable
    /// and the next use pins the latest version. Frozen values made before
    /// keep their own pin. Does nothing on a frozen instance.
    public func invalidate() {
        guard case let .live(core) = instance else { return }
        core.invalidate()
    }

    /// A frozen instance at the version this one reads: readable from any
    /// thread, sharing the version's one `frozen` pin with every frozen
    /// value of it; writing through it throws `.frozen`.
    public func freeze() throws(DatabaseError) -> Database {
        guard case let .live(core) = instance else { return self }
        return Database(instance: .frozen(try core.frozenVersion(operation: "freeze the Database")))
    }

    private init(instance: Instance) { self.instance = instance }

    /// The caller's live instance of this configuration (its queue's, or
    /// its thread's), refreshed first when it reads an older version.
    public func thaw() throws(DatabaseError) -> Database {
        guard case let .frozen(frozen) = instance else { return self }
        let core = try InstanceCache.callersInstance(frozen.configuration)
        try core.catchUp(to: frozen.version)
        return Database(core: core)
    }

    // MARK: reading

    /// Every object of `type`, read lazily from the version this instance
    /// reads whenever the results are used (live), or from its frozen
    /// version.
    /// An embedded type's objects are reached through their owners: asking
    /// for them stops the program, as in Realm (`EmbeddedObject`).
    public func objects<T: Object>(_ type: T.Type) -> Results<T> {
        source.checkAccess()
        if type is EmbeddedObject.Type {
            fatalError("Firn: \(DatabaseError.embeddedObject(type: String(describing: type), operation: "be queried as a type of its own"))")
        }
        return Results(source: source)
    }

    /// The object of `type` whose primary key is `primaryKey`, or nil.
    public func object<T: Object, K: PersistableValue>(ofType type: T.Type, forPrimaryKey primaryKey: K) throws(DatabaseError) -> T? {
        let source = source
        source.checkAccess()
        let info = try source.info(type)
        guard let (_, property) = info.primaryKey else {
            throw DatabaseError.missingPrimaryKey(type: info.name, operation: "object(ofType:forPrimaryKey:)")
        }
        guard K._persistedType.type == property.type, let value = primaryKey._persistedField.value,
              let key = ObjectKey.encode(value, as: property.type) else {
            throw DatabaseError.typeMismatch(type: info.name, property: property.name,
                                             expected: "\(property.type)", found: "\(K.self)")
        }
        return try source.resolve(type, key: key)
    }

    // MARK: writing

    /// The live instance for a write, or `.frozen` naming `operation`.
    func writer(_ operation: String) throws(DatabaseError) -> DatabaseCore {
        switch instance {
        case let .live(core): return core
        case .frozen: throw DatabaseError.frozen(type: "Database", operation: operation)
        }
    }

    /// Runs `block` in a write transaction and commits it; cancels it when
    /// `block` throws (and rethrows).
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        try write(withoutNotifying: [], block)
    }

    /// Starts a write transaction (waits for the writer lock); the instance
    /// then reads the latest version. Throws `.tooManyActiveVersions` when
    /// the commit would leave more versions pinned than the configuration's
    /// `maximumNumberOfActiveVersions`.
    public func beginWrite() throws(DatabaseError) { try writer("beginWrite").beginWrite() }

    /// Commits the write transaction; the instance then reads the new version.
    /// Its observers are told at once, on the caller (docs/SDK.md "Notifications").
    public func commitWrite() throws(DatabaseError) { try commitWrite(withoutNotifying: []) }

    /// Discards the write transaction's changes.
    public func cancelWrite() {
        guard case let .live(core) = instance else { return }
        core.cancelWrite()
    }

    /// Stores an unmanaged object; it becomes a live view of its record.
    /// With `.error` (the default), an existing object with the same
    /// primary key throws `.duplicatePrimaryKey`; otherwise it is replaced.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws(DatabaseError) {
        try writer("add objects").add(object, update: update)
    }

    /// Deletes a stored object; reading it afterwards stops the program
    /// (check `isInvalidated`).
    public func delete(_ object: Object) throws(DatabaseError) { try writer("delete objects").delete(object) }
}
