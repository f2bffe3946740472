/// Where a database lives and which object types it stores. The same
/// configuration on the same thread gives the same (cached) instance.
public struct Configuration: Sendable {
    /// The database file (created when missing, unless `readOnly`). Setting
    /// it clears `inMemoryIdentifier`; empty for an in-memory configuration.
    public var path: String {
        didSet { if !path.isEmpty { inMemoryIdentifier = nil } }
    }
    /// Set for an in-memory database (Realm's name): instances with the same
    /// identifier share its data while any of them (or a frozen value of
    /// it) lives in this process; after the last one, the data is gone and
    /// the next open starts empty. Nothing is left on disk, even after a
    /// crash: see docs/SDK.md "In-memory and read-only configurations".
    /// Setting it clears `path`.
    public var inMemoryIdentifier: String? {
        didSet { if inMemoryIdentifier != nil { path = "" } }
    }
    /// Opens an existing file without writing to it: beginning a write
    /// throws `DatabaseError.readOnly`, and so does opening a missing file
    /// (`.engine(.notFound)`) or one whose schema the configuration would
    /// have to change. Default false.
    public var readOnly = false
    /// The object classes stored; every type used must be listed.
    public var objectTypes: [Object.Type]
    /// The most distinct versions the file may have pinned (by any process)
    /// after a write, a freeze or a new pin; the operation that would go
    /// past it throws `DatabaseError.tooManyActiveVersions`, listing the
    /// pins. Nil: no limit. See docs/SDK.md.
    public var maximumNumberOfActiveVersions: UInt?
    /// Asked when this process first opens the file (no instance of it is
    /// open here yet) with the file's size and the bytes its current
    /// version uses (its last checkpoint's pages and its commit log:
    /// deletions still in the log free pages only at the next checkpoint,
    /// docs/COMMIT-PATH.md); returning true compacts the file in place — only when
    /// no other process has it open (otherwise it opens as it is). The same
    /// packed image writer as `firn compact`, verified before it replaces
    /// the file. See docs/SDK.md.
    public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: UInt64, _ usedBytes: UInt64) -> Bool)?
    /// The version of the object types' schema (default 0), stored in the
    /// file. Raise it, with a `migrationBlock`, for a change that is not
    /// additive (a property removed, or its type changed); a file written
    /// with a higher version does not open. See docs/SDK.md, "Migrations".
    public var schemaVersion: UInt64
    /// Runs once, when a file written with a lower `schemaVersion` opens:
    /// inside the migration's write transaction, with the file's old schema
    /// version as the second argument. Throwing commits nothing and fails
    /// the open.
    public var migrationBlock: (@Sendable (Migration, UInt64) throws -> Void)?

    public init(path: String, objectTypes: [Object.Type], maximumNumberOfActiveVersions: UInt? = nil,
                schemaVersion: UInt64 = 0, migrationBlock: (@Sendable (Migration, UInt64) throws -> Void)? = nil) {
        self.path = path
        self.objectTypes = objectTypes
        self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        self.schemaVersion = schemaVersion
        self.migrationBlock = migrationBlock
    }

    /// An in-memory database (see `inMemoryIdentifier`), for tests and caches.
    public init(inMemoryIdentifier: String, objectTypes: [Object.Type], maximumNumberOfActiveVersions: UInt? = nil,
                schemaVersion: UInt64 = 0, migrationBlock: (@Sendable (Migration, UInt64) throws -> Void)? = nil) {
        self.init(path: "", objectTypes: objectTypes, maximumNumberOfActiveVersions: maximumNumberOfActiveVersions,
                  schemaVersion: schemaVersion, migrationBlock: migrationBlock)
        self.inMemoryIdentifier = inMemoryIdentifier
    }

    /// What makes two configurations the same instance on one thread.
    var identity: [String] {
        [storeKey, maximumNumberOfActiveVersions.map { "max versions \($0)" } ?? "", "schema version \(schemaVersion)"] + objectTypes.map { String(reflecting: $0) }
    }

    /// The open store this configuration uses in the process: one per
    /// file for writing, one per file read-only, one per in-memory identifier.
    var storeKey: String {
        if let inMemoryIdentifier { return "in memory: " + inMemoryIdentifier }
        return readOnly ? "read-only: " + path : path
    }
}
