import FirnCore

/// The trees of one snapshot read so far, by name (nil: the version has no
/// such tree): each tree's root is looked up in the catalog once per
/// snapshot, not once per record. The one cache behind the three readers of
/// a version: a live instance's read snapshot (`DatabaseCore`, cleared when
/// it moves to another version), a frozen version (`FrozenVersion`, behind
/// a lock: frozen values are read from any thread) and the version a
/// notification steps from (`SnapshotSource`).
struct TreeReaders {
    private var readers: [String: TreeReader?] = [:]

    /// `name`'s reader in `snapshot`, which must be the snapshot every
    /// earlier call of this cache read (`removeAll` when it changes).
    mutating func reader(_ name: String, in snapshot: Snapshot) throws(DatabaseError) -> TreeReader? {
        if let cached = readers[name] { return cached }
        let reader = try engine { () throws(FirnError) in try snapshot.tree(name) }
        readers[name] = .some(reader)
        return reader
    }

    mutating func removeAll() { readers.removeAll(keepingCapacity: true) }
}

/// An object source that reads one snapshot's trees (a frozen version, a
/// notification's old version): its records, cursors and counts all come
/// from `reader(_:)`.
protocol SnapshotTreeSource: ObjectSource {
    func reader(_ name: String) throws(DatabaseError) -> TreeReader?
}

extension SnapshotTreeSource {
    func value(in tree: String, key: [UInt8]) throws(DatabaseError) -> RecordBytes? {
        guard let reader = try reader(tree) else { return nil }
        return try engine { () throws(FirnError) in try reader.get(key).map(RecordBytes.mapped) }
    }

    func cursor(in tree: String) throws(DatabaseError) -> Cursor? { try reader(tree)?.cursor() }

    func count(in tree: String) throws(DatabaseError) -> Int { Int(clamping: try reader(tree)?.count ?? 0) }
}
