import FirnCore

/// Where managed objects and results read: a live database instance (its
/// read snapshot or its write transaction) or a frozen version.
protocol ObjectSource: AnyObject {
    var isFrozen: Bool { get }
    /// Changes whenever records may have changed (refresh, write, commit):
    /// cached records and cursors of an older generation are not used.
    var generation: UInt64 { get }
    /// Changes when the source gives up what its objects read (a live
    /// instance's `invalidate()`): objects of an older session are invalidated.
    var session: UInt64 { get }
    /// Stops the program when a live source is used off its thread.
    func checkAccess()
    /// The value under `key` in the tree `tree` (objects, list elements, index entries).
    func value(in tree: String, key: [UInt8]) throws(DatabaseError) -> RecordBytes?
    /// A cursor over the tree, nil when the version has no such tree yet.
    func cursor(in tree: String) throws(DatabaseError) -> Cursor?
    func count(in tree: String) throws(DatabaseError) -> Int
    func info(_ type: Object.Type) throws(DatabaseError) -> ClassInfo
    /// The configuration's classes.
    var infos: [ObjectIdentifier: ClassInfo] { get }
    /// A managed object of this source came or went (frozen sources count them).
    func objectCreated()
    func objectReleased()
}

extension ObjectSource {
    /// The configuration's class called `name` (a link's target type).
    func info(named name: String) -> ClassInfo? { infos.values.first { $0.name == name } }

    /// Frozen versions never give up what they read.
    var session: UInt64 { 0 }

    func record(_ info: ClassInfo, key: [UInt8]) throws(DatabaseError) -> RecordBytes? {
        try value(in: info.schema.treeName, key: key)
    }

    /// A cursor over the type's tree, nil when it has none yet.
    func cursor(_ info: ClassInfo) throws(DatabaseError) -> Cursor? { try cursor(in: info.schema.treeName) }

    func count(_ info: ClassInfo) throws(DatabaseError) -> Int { try count(in: info.schema.treeName) }

    /// The object of `type` stored under `key` in this source, nil when
    /// there is none (a link whose target was deleted).
    func resolve<T: Object>(_ type: T.Type, key: [UInt8]) throws(DatabaseError) -> T? {
        let info = try info(type)
        guard let record = try record(info, key: key) else { return nil }
        let object = T()
        object.managed = ManagedObject(source: self, info: info, key: key, record: record)
        return object
    }
}

/// Runs an engine call, wrapping its error.
func engine<R>(_ body: () throws(FirnError) -> R) throws(DatabaseError) -> R {
    do { return try body() } catch { throw DatabaseError.engine(error) }
}
