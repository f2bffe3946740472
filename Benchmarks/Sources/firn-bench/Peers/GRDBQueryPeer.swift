import GRDB

/// The query rows on GRDB 7 as its documentation shows them: a
/// `DatabasePool`, a table with an index on `group`, a Codable record and
/// the query interface (`filter`, `order`, `fetchCursor`, `fetchCount`, an
/// aggregate `select`).
final class GRDBQueryPeer: QueryPeer {
    static let name = "grdb"

    struct Entry: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "entry"
        var id: Int
        var name: String
        var group: Int
        var value: Int

        enum Columns {
            static let group = Column(CodingKeys.group)
            static let value = Column(CodingKeys.value)
        }
    }

    private var pool: DatabasePool?

    init(path: String) throws {
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.create(table: Entry.databaseTableName, ifNotExists: true) { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("group", .integer).notNull().indexed()
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

    func create(_ items: QueryItems) throws {
        try open.write { db in
            for i in 0..<items.count {
                try Entry(id: i, name: items.names[i], group: items.group(i), value: items.values[i]).insert(db)
            }
        }
    }

    func indexedEquality(_ groups: [Int]) throws -> (count: Int, sum: Int) {
        try open.read { db in
            var count = 0, sum = 0
            for group in groups {
                let cursor = try Entry.filter(Entry.Columns.group == group).fetchCursor(db)
                while let entry = try cursor.next() {
                    count += 1
                    sum &+= entry.value
                }
            }
            return (count, sum)
        }
    }

    func unindexedRange(_ ranges: [ClosedRange<Int>]) throws -> (count: Int, sum: Int) {
        try open.read { db in
            var count = 0, sum = 0
            for range in ranges {
                let cursor = try Entry.filter(range.contains(Entry.Columns.value)).fetchCursor(db)
                while let entry = try cursor.next() {
                    count += 1
                    sum &+= entry.value
                }
            }
            return (count, sum)
        }
    }

    func sortedByTwoKeys() throws -> (count: Int, checksum: Int) {
        try open.read { db in
            // The primary key last: SQLite's sort is not stable, Firn's keeps key order.
            let cursor = try Entry.order(Entry.Columns.group, Entry.Columns.value.desc, Column("id")).fetchCursor(db)
            var count = 0, sum = 0
            while let entry = try cursor.next() {
                count += 1
                sum &+= count &* entry.value
            }
            return (count, sum)
        }
    }

    func count(valueBelow limit: Int) throws -> Int {
        try open.read { db in try Entry.filter(Entry.Columns.value < limit).fetchCount(db) }
    }

    func sumOfValues() throws -> Int {
        try open.read { db in try Int.fetchOne(db, Entry.select(sum(Entry.Columns.value))) ?? 0 }
    }

    func close() {
        try? pool?.close()
        pool = nil
    }
}
