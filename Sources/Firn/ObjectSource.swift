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
    func record(_ info: ClassInfo, key: [UInt8]) throws(DatabaseError) -> RecordBytes?
    /// A cursor over the type's tree, nil when it has none yet.
    func cursor(_ info: ClassInfo) throws(DatabaseError) -> Cursor?
    func count(_ info: ClassInfo) throws(DatabaseError) -> Int
    func info(_ type: Object.Type) throws(DatabaseError) -> ClassInfo
    /// A managed object of this source came or went (frozen sources count them).
    func objectCreated()
    func objectReleased()
}

extension ObjectSource {
    /// Frozen versions never give up what they read.
    var session: UInt64 { 0 }
}

/// Runs an engine call, wrapping its error.
func engine<R>(_ body: () throws(FirnError) -> R) throws(DatabaseError) -> R {
    do { return try body() } catch { throw DatabaseError.engine(error) }
}
