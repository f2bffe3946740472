import GRDB

/// GRDB 7 as its documentation shows it: a `DatabasePool` (WAL mode, one
/// writer, concurrent readers), a table made with the schema builder, and
/// a Codable record type that is `FetchableRecord & PersistableRecord`.
/// Durability is GRDB's default: its writer runs WAL with synchronous
/// NORMAL (commits synced at checkpoints, not one by one; readers report
/// FULL, which misled an earlier version of this comment).
final class GRDBPeer: ObjectPeer {
    static let name = "grdb"

    struct Item: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var id: Int
        var name: String
        var value: Int
    }

    private var pool: DatabasePool?

    convenience init(path: String) throws {
        try self.init(path: path, synchronousFull: false)
    }

    /// `synchronousFull`: the writer runs `PRAGMA synchronous = FULL` (each
    /// commit syncs the WAL, as Firn's `.full` syncs each commit);
    /// otherwise GRDB's own default, synchronous NORMAL for the writer.
    init(path: String, synchronousFull: Bool) throws {
        let pool = try DatabasePool(path: path)
        // On the writer connection, outside a transaction (GRDB sets its
        // own value when it opens connections, after `prepareDatabase`).
        if synchronousFull { try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") } }
        try pool.write { db in
            try db.create(table: Item.databaseTableName, ifNotExists: true) { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("value", .integer).notNull()
            }
        }
        self.pool = pool
    }

    private var open: DatabasePool {
        get throws {
            guard let pool else { throw EngineError(description: "grdb: closed") }
            return pool
        }
    }

    func create(_ items: SDKItems) throws {
        try open.write { db in
            for i in 0..<items.count {
                try Item(id: i, name: items.names[i], value: items.values[i]).insert(db)
            }
        }
    }

    func get(_ order: [Int]) throws -> (found: Int, sum: Int) {
        try open.read { db in
            var found = 0, sum = 0
            for id in order {
                if let item = try Item.fetchOne(db, key: id) {
                    found += 1
                    sum &+= item.value
                }
            }
            return (found, sum)
        }
    }

    /// `get` as a GRDB user tuning it would write it: `fetchOne(_:key:)`
    /// builds and prepares its SELECT on every call, a cached statement once.
    func getWithCachedStatement(_ order: [Int]) throws -> (found: Int, sum: Int) {
        try open.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE id = ?")
            var found = 0, sum = 0
            for id in order {
                if let item = try Item.fetchOne(statement, arguments: [id]) {
                    found += 1
                    sum &+= item.value
                }
            }
            return (found, sum)
        }
    }

    func iterate() throws -> (count: Int, sum: Int) {
        try open.read { db in
            // A cursor, not fetchAll: one row in memory at a time.
            let cursor = try Item.fetchCursor(db)
            var count = 0, sum = 0
            while let item = try cursor.next() {
                count += 1
                sum &+= item.value
            }
            return (count, sum)
        }
    }

    /// The journal mode and synchronous setting in effect, for the log.
    /// The writer connection's settings (a reader's may differ).
    func settings() throws -> String {
        try open.write { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
            let sync = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return "journal_mode=\(mode), synchronous=\(sync)"
        }
    }

    func close() {
        try? pool?.close()
        pool = nil
    }
}

extension GRDBPeer {
    /// `count` one-row `DatabasePool.write` transactions (each durable:
    /// synchronous=FULL in WAL mode).
    func writeEach(_ items: SDKItems, count: Int) throws {
        let pool = try open
        for i in 0..<count {
            try pool.write { db in try Item(id: i, name: items.names[i], value: items.values[i]).insert(db) }
        }
    }
}
