/// Where a database lives and which object types it stores. The same
/// configuration on the same thread gives the same (cached) instance.
public struct Configuration: Sendable {
    /// The database file (created when missing).
    public var path: String
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

    /// What makes two configurations the same instance on one thread.
    var identity: [String] {
        [path, maximumNumberOfActiveVersions.map { "max versions \($0)" } ?? "", "schema version \(schemaVersion)"] + objectTypes.map { String(reflecting: $0) }
    }
}
