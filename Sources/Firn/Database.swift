import FirnCore

/// A database instance bound to the thread that made it. Making one with
/// the same configuration on the same thread returns the same instance;
/// using it, its results or its objects on another thread stops the
/// program ("Database accessed from incorrect thread", naming both).
///
/// ```swift
/// let db = try Database(configuration: Configuration(path: "app.firn", objectTypes: [Dog.self]))
/// try db.write { try db.add(Dog()) }
/// let dogs = db.objects(Dog.self)
/// ```
///
/// Sendable so that the mistake is caught where it happens: every use
/// checks the thread (one comparison) instead of the compiler refusing
/// the hand-over that frozen values and thread-safe references make fine.
public struct Database: @unchecked Sendable {
    let core: DatabaseCore

    public init(configuration: Configuration) throws(DatabaseError) {
        core = try InstanceCache.instance(configuration)
    }

    init(core: DatabaseCore) { self.core = core }

    public var configuration: Configuration { core.configuration }

    /// The version this instance reads.
    public var version: UInt64 {
        core.checkAccess()
        return core.snapshot.version
    }

    /// The engine store underneath (pins, versions, diagnostics).
    public var store: Store { core.store }

    public var isInWriteTransaction: Bool {
        core.checkAccess()
        return core.isInWriteTransaction
    }

    /// Moves this instance's read pin to the latest version; true when the
    /// version changed. Objects and results read the new version from then on.
    @discardableResult
    public func refresh() throws(DatabaseError) -> Bool { try core.refresh() }

    // MARK: reading

    /// Every object of `type`, read lazily from the version this instance
    /// reads whenever the results are used (live).
    public func objects<T: Object>(_ type: T.Type) -> Results<T> {
        core.checkAccess()
        return Results(source: core)
    }

    /// The object of `type` whose primary key is `primaryKey`, or nil.
    public func object<T: Object, K: PersistableValue>(ofType type: T.Type, forPrimaryKey primaryKey: K) throws(DatabaseError) -> T? {
        core.checkAccess()
        let info = try core.info(type)
        guard let (_, property) = info.primaryKey else {
            throw DatabaseError.missingPrimaryKey(type: info.name, operation: "object(ofType:forPrimaryKey:)")
        }
        guard K._persistedType.type == property.type, let value = primaryKey._persistedField.value,
              let key = ObjectKey.encode(value, as: property.type) else {
            throw DatabaseError.typeMismatch(type: info.name, property: property.name,
                                             expected: "\(property.type)", found: "\(K.self)")
        }
        return try core.object(type, key: key)
    }

    // MARK: writing

    /// Runs `block` in a write transaction and commits it; cancels it when
    /// `block` throws (and rethrows).
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        try beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        try commitWrite()
        return result
    }

    /// Starts a write transaction (waits for the writer lock).
    public func beginWrite() throws(DatabaseError) { try core.beginWrite() }

    /// Commits the write transaction; the instance then reads the new version.
    public func commitWrite() throws(DatabaseError) { try core.commitWrite() }

    /// Discards the write transaction's changes.
    public func cancelWrite() { core.cancelWrite() }

    /// Stores an unmanaged object; it becomes a live view of its record.
    /// With `.error` (the default), an existing object with the same
    /// primary key throws `.duplicatePrimaryKey`; otherwise it is replaced.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws(DatabaseError) {
        try core.add(object, update: update)
    }

    /// Deletes a stored object; reading it afterwards stops the program
    /// (check `isInvalidated`).
    public func delete(_ object: Object) throws(DatabaseError) { try core.delete(object) }
}
