#if canImport(Glibc)
import Glibc
#endif
import CLMDB

/// LMDB through liblmdb: one file (MDB_NOSUBDIR), the unnamed database.
final class LMDBEngine: PinningEngine {
    static let name = "lmdb"
    private var env: OpaquePointer?
    private var dbi: MDB_dbi = 0
    private var pinned: OpaquePointer?

    init(path: String, durable: Bool) throws {
        try check(mdb_env_create(&env), "mdb_env_create")
        try check(mdb_env_set_mapsize(env, 64 << 30), "mdb_env_set_mapsize")
        var flags = UInt32(MDB_NOSUBDIR) | UInt32(MDB_NOTLS)
        if !durable { flags |= UInt32(MDB_NOSYNC) }
        let rc = mdb_env_open(env, path, flags, 0o644)
        if rc != 0 {
            mdb_env_close(env)
            env = nil
            try check(rc, "mdb_env_open \(path)")
        }
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        try check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open")
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private func check(_ rc: Int32, _ what: String) throws {
        if rc != 0 { throw EngineError(description: "\(what): \(String(cString: mdb_strerror(rc)))") }
    }

    @inline(__always)
    private func val(_ b: UnsafeRawBufferPointer) -> MDB_val {
        MDB_val(mv_size: b.count, mv_data: UnsafeMutableRawPointer(mutating: b.baseAddress))
    }

    func load(_ ds: Dataset, _ range: Range<Int>) throws {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        for i in range {
            var k = val(ds.key(i)), v = val(ds.value(i))
            let rc = mdb_put(txn, dbi, &k, &v, 0)
            if rc != 0 { mdb_txn_abort(txn); try check(rc, "mdb_put") }
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    func putEach(_ ds: Dataset, _ range: Range<Int>) throws {
        for i in range { try load(ds, i..<(i + 1)) }
    }

    func readAll(_ ds: Dataset, order: [Int32]) throws -> Int {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var found = 0
        var sum = 0
        for i in order {
            var k = val(ds.key(Int(i)))
            var v = MDB_val()
            if mdb_get(txn, dbi, &k, &v) == 0 {
                found += 1
                sum &+= Int(v.mv_data.load(as: UInt8.self))
            }
        }
        blackHole(sum)
        return found
    }

    func scan() throws -> Int {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var k = MDB_val(), v = MDB_val()
        var n = 0
        var sum = 0
        var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
        while rc == 0 {
            sum &+= Int(v.mv_data.load(as: UInt8.self))
            n += 1
            rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
        }
        blackHole(sum)
        return n
    }

    func pin() throws {
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &pinned), "mdb_txn_begin (pin)")
    }

    func unpin() {
        if pinned != nil { mdb_txn_abort(pinned) }
        pinned = nil
    }

    func overwrite(_ ds: Dataset, _ indices: ArraySlice<Int32>, round: Int) throws {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        var value = [UInt8](repeating: 0, count: ds.valueLength)
        for i in indices {
            value.withUnsafeMutableBytes { $0.copyMemory(from: ds.value(Int(i))) }
            value[0] = UInt8(truncatingIfNeeded: round)
            var k = val(ds.key(Int(i)))
            let rc = value.withUnsafeBytes { b -> Int32 in
                var v = val(b)
                return mdb_put(txn, dbi, &k, &v, 0)
            }
            if rc != 0 { mdb_txn_abort(txn); try check(rc, "mdb_put") }
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    func close() {
        unpin()
        if env != nil { mdb_env_close(env) }
        env = nil
    }

    deinit { close() }
}
