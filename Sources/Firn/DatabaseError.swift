import FirnCore

/// The errors the SDK throws. Each names the object type and, where one is
/// involved, the property, so the message alone says what to fix.
public enum DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The engine failed (I/O, corruption, a lock not obtained…).
    case engine(FirnError)
    /// A value's type is not the property's.
    case typeMismatch(type: String, property: String, expected: String, found: String)
    /// The operation needs a primary key and the type declares none.
    case missingPrimaryKey(type: String, operation: String)
    /// `add` without `update:` found an object with the same primary key.
    case duplicatePrimaryKey(type: String, property: String, value: String)
    /// The file's schema of a type differs from the class in a way that
    /// needs a migration: a `schemaVersion` above `storedVersion` and a
    /// `migrationBlock` (`configuredVersion` is the configuration's).
    case migrationRequired(type: String, property: String, change: String, storedVersion: UInt64, configuredVersion: UInt64, hasBlock: Bool)
    /// The file was written with a higher schema version than the configuration's.
    case schemaVersionTooLow(configured: UInt64, stored: UInt64)
    /// A migration block asked for something the schemas do not allow
    /// (renaming a property that does not exist, to one of another type…).
    case invalidMigration(type: String, property: String, detail: String)
    /// The migration block threw `error` (its description): nothing was committed.
    case migrationBlockFailed(oldVersion: UInt64, newVersion: UInt64, error: String)
    /// The class cannot be stored as declared (two primary keys, a key of a type without a key encoding…).
    case invalidSchema(type: String, detail: String)
    /// The type is not in the configuration's `objectTypes`.
    case typeNotInConfiguration(type: String)
    /// A change was attempted outside `write` / `beginWrite`.
    case notInWriteTransaction(operation: String)
    /// `beginWrite` inside a write transaction.
    case alreadyInWriteTransaction
    /// `operation` (a freeze) inside a write transaction: frozen values
    /// read committed versions, and the write's changes are not one yet.
    case inWriteTransaction(operation: String)
    /// A frozen value cannot do this (write, modify, freeze inside a write…).
    case frozen(type: String, operation: String)
    /// The object is not stored in a database.
    case unmanagedObject(type: String, operation: String)
    /// The object belongs to another database instance or another file.
    case objectFromAnotherDatabase(type: String)
    /// The object was deleted.
    case invalidatedObject(type: String)
    /// A managed object's primary key cannot change.
    case primaryKeyChange(type: String, property: String)
    /// A query or sort names a property the type does not store.
    case unknownProperty(type: String, property: String)
    /// A list position outside `0 ..< count` (`count` for insertion).
    case listIndexOutOfRange(type: String, property: String, index: Int, count: Int)
    /// The value cannot be stored or compared as asked (a key too long for
    /// an index or list tree, an operator the property's type lacks).
    case invalidValue(type: String, property: String, detail: String)
    /// A `ThreadSafeReference` resolves once; this one (made at `madeAt`,
    /// file:line) already has.
    case referenceAlreadyResolved(type: String, madeAt: String)
    /// The reference was made from another database file than the resolving instance's.
    case referenceFromAnotherFile(type: String, referencePath: String, databasePath: String)
    /// The object was read through an instance that `invalidate()` released since.
    case invalidatedInstance(type: String)
    /// `operation` would leave more distinct versions pinned than
    /// `Configuration.maximumNumberOfActiveVersions`: `versions` are the
    /// versions it would leave pinned, `pins` every live pin of the file,
    /// as listed at `checkedAtNanoseconds` (wall clock, for their ages).
    case tooManyActiveVersions(operation: String, limit: UInt, versions: [UInt64], pins: [PinRecord], checkedAtNanoseconds: UInt64)
    /// `cancelAsyncWrite` was given an id that names nothing pending: never
    /// handed out by this instance, or its write or callback is over.
    case unknownAsyncWrite(id: AsyncTransactionId)
    /// `operation` would wait for the writer lock that an `asyncWrite` of
    /// this instance holds or waits for, suspended until this actor is free.
    case asyncWriteInProgress(operation: String)
    /// The instance was closed (`close()`).
    case closed
    /// A stored raw value names no case of the property's `PersistableEnum`
    /// (written by a build with more cases, or damaged).
    case unknownEnumValue(type: String, property: String, enumType: String, rawValue: String)
    /// The configuration is `readOnly`: `operation` would write.
    case readOnly(operation: String)
    /// An `EmbeddedObject` lives only in its owner's property: it cannot
    /// be added on its own, queried as a type, or given a second owner.
    case embeddedObject(type: String, operation: String)

    public var description: String {
        switch self {
        case let .engine(error): return error.description
        case let .typeMismatch(type, property, expected, found):
            return "\(type).\(property): expected a value of type \(expected), got \(found)"
        case let .missingPrimaryKey(type, operation):
            return "\(type) has no primary key (needed by \(operation)); declare one with @Persisted(primaryKey: true)"
        case let .duplicatePrimaryKey(type, property, value):
            return "\(type).\(property): an object with primary key \(value) already exists (use add(_:update:) to replace it)"
        case let .migrationRequired(type, property, change, stored, configured, hasBlock):
            var todo: [String] = []
            if configured <= stored { todo.append("raise Configuration.schemaVersion above \(stored) (it is \(configured))") }
            if !hasBlock { todo.append("set Configuration.migrationBlock") }
            return "\(type).\(property): the file's schema differs from the class: \(change); this change needs a migration: "
                + todo.joined(separator: " and ")
        case let .schemaVersionTooLow(configured, stored):
            return "the file was written with schema version \(stored), higher than the configuration's schemaVersion \(configured) (an older application cannot open it)"
        case let .invalidMigration(type, property, detail): return "migration of \(type).\(property): \(detail)"
        case let .migrationBlockFailed(old, new, error):
            return "the migration block from schema version \(old) to \(new) threw (nothing was committed): \(error)"
        case let .invalidSchema(type, detail): return "\(type): \(detail)"
        case let .typeNotInConfiguration(type):
            return "\(type) is not in the configuration's objectTypes"
        case let .notInWriteTransaction(operation):
            return "\(operation) needs a write transaction (write { } or beginWrite())"
        case .alreadyInWriteTransaction: return "this database instance is already in a write transaction"
        case let .inWriteTransaction(operation):
            return "cannot \(operation) inside a write transaction: frozen values read committed versions; commit or cancel the write first"
        case let .frozen(type, operation): return "\(type) is frozen: cannot \(operation) (thaw() it first)"
        case let .unmanagedObject(type, operation): return "\(type) is not stored in a database: cannot \(operation)"
        case let .objectFromAnotherDatabase(type): return "\(type) belongs to another database instance"
        case let .invalidatedObject(type): return "\(type) has been deleted"
        case let .primaryKeyChange(type, property): return "\(type).\(property): the primary key of a stored object cannot change"
        case let .unknownProperty(type, property): return "\(type) has no stored property \(property)"
        case let .listIndexOutOfRange(type, property, index, count):
            return "\(type).\(property): index \(index) is out of range of a list of \(count)"
        case let .invalidValue(type, property, detail): return "\(type).\(property): \(detail)"
        case let .referenceAlreadyResolved(type, madeAt):
            return "the ThreadSafeReference to \(type) made at \(madeAt) was already resolved (a reference resolves once)"
        case let .referenceFromAnotherFile(type, referencePath, databasePath):
            return "the ThreadSafeReference to \(type) belongs to \(referencePath), not to \(databasePath)"
        case let .invalidatedInstance(type):
            return "\(type) was read through a Database instance that invalidate() released since; read it again"
        case let .tooManyActiveVersions(operation, limit, versions, pins, now):
            return ActiveVersionLimit.describe(operation: operation, limit: limit, versions: versions, pins: pins, now: now)
        case let .unknownAsyncWrite(id):
            return "no pending async write or completion has id \(id) (never handed out by this instance, or already over)"
        case let .asyncWriteInProgress(operation):
            return "\(operation) would wait for the writer lock that an asyncWrite of this instance holds or waits for, and that asyncWrite cannot resume until this call returns; await it first"
        case .closed: return "the Database instance was closed; open a new one"
        case let .unknownEnumValue(type, property, enumType, rawValue):
            return "\(type).\(property): the stored raw value \(rawValue) is no case of \(enumType)"
        case let .readOnly(operation):
            return "the Database was opened read-only (Configuration.readOnly): cannot \(operation)"
        case let .embeddedObject(type, operation):
            return "\(type) is an embedded object: cannot \(operation) (it lives in the one property of its owner that holds it)"
        }
    }
}
