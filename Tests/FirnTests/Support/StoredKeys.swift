import Firn
import FirnCore

/// Generated keys as the file holds them (`GeneratedKeyTests`, `MigrationTests`).
enum StoredKeys {
    /// The generated keys of the objects in `tree`, in key order.
    static func keys(_ path: String, _ tree: String = "obj.Note") throws -> [UInt64] {
        let store = try Store.open(path)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return try snapshot.tree(tree).map { reader in
            let cursor = reader.cursor()
            try cursor.first()
            var out: [UInt64] = []
            while cursor.isValid {
                out.append(try cursor.withKey { ObjectKey.generatedID($0) }.flatMap { $0 } ?? 0)
                try cursor.next()
            }
            return out
        } ?? []
    }

    /// The high-water mark of `type`'s generated keys in `sys.meta`.
    static func nextKeyMark(_ path: String, _ type: String) throws -> UInt64? {
        let store = try Store.open(path)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return try snapshot.tree(SchemaMeta.treeName)?.get(SchemaMeta.nextKeyKey(type)).map { try SchemaMeta.decode($0.array, key: type) }
    }
}
