#if canImport(Glibc)
import Glibc
#endif
import CSQLiteBench

/// SQLite through libsqlite3: `kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`
/// (a clustered B-tree on the key, like the others), WAL journal, prepared
/// statements, blobs bound without copying.
final class SQLiteEngine: Engine {
    static let name = "sqlite"
    private var db: OpaquePointer?

    init(path: String, durable: Bool) throws {
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        if rc != SQLITE_OK {
            sqlite3_close(db)
            db = nil
            throw EngineError(description: "sqlite3_open_v2 \(path): \(rc)")
        }
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=\(durable ? "FULL" : "OFF")")
        try exec("CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
    }

    func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &err) != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? "error"
            sqlite3_free(err)
            throw EngineError(description: "\(sql): \(message)")
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var stmt: OpaquePointer?
        if sqlite3_prepare_v2(db, sql, -1, &stmt, nil) != SQLITE_OK {
            throw EngineError(description: "prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return stmt
    }

    private func insert(_ stmt: OpaquePointer?, _ ds: Dataset, _ i: Int) throws {
        let k = ds.key(i), v = ds.value(i)
        sqlite3_bind_blob(stmt, 1, k.baseAddress, Int32(k.count), nil)
        sqlite3_bind_blob(stmt, 2, v.baseAddress, Int32(v.count), nil)
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        if rc != SQLITE_DONE { throw EngineError(description: "insert: \(String(cString: sqlite3_errmsg(db)))") }
    }

    func load(_ ds: Dataset, _ range: Range<Int>) throws {
        let stmt = try prepare("INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)")
        defer { sqlite3_finalize(stmt) }
        try exec("BEGIN")
        for i in range { try insert(stmt, ds, i) }
        try exec("COMMIT")
    }

    func putEach(_ ds: Dataset, _ range: Range<Int>) throws {
        let stmt = try prepare("INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)")
        defer { sqlite3_finalize(stmt) }
        for i in range { try insert(stmt, ds, i) }  // autocommit: one transaction each
    }

    func readAll(_ ds: Dataset, order: [Int32]) throws -> Int {
        let stmt = try prepare("SELECT v FROM kv WHERE k = ?")
        defer { sqlite3_finalize(stmt) }
        try exec("BEGIN")
        defer { try? exec("COMMIT") }
        var found = 0
        var sum = 0
        for i in order {
            let k = ds.key(Int(i))
            sqlite3_bind_blob(stmt, 1, k.baseAddress, Int32(k.count), nil)
            if sqlite3_step(stmt) == SQLITE_ROW, let p = sqlite3_column_blob(stmt, 0) {
                found += 1
                sum &+= Int(p.load(as: UInt8.self))
            }
            sqlite3_reset(stmt)
        }
        blackHole(sum)
        return found
    }

    func scan() throws -> Int {
        let stmt = try prepare("SELECT k, v FROM kv ORDER BY k")
        defer { sqlite3_finalize(stmt) }
        var n = 0
        while sqlite3_step(stmt) == SQLITE_ROW { n += 1 }
        return n
    }

    /// `PRAGMA integrity_check`; throws unless it answers "ok".
    func integrityCheck() throws {
        let stmt = try prepare("PRAGMA integrity_check")
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0) else {
            throw EngineError(description: "integrity_check returned nothing")
        }
        let answer = String(cString: text)
        if answer != "ok" { throw EngineError(description: "integrity_check: \(answer)") }
    }

    func close() {
        if db != nil { sqlite3_close(db) }
        db = nil
    }

    deinit { close() }
}
