/// 1. load — the data set (1M records; 100k with --quick) in one write
/// transaction, random key order, committed durably, Firn with its commit
/// log on (the default: the transaction outgrows a frame and checkpoints):
/// records/s, Firn vs LMDB and SQLite, each single-threaded. Open and close
/// are outside the clock; the commit (and its syncs) is inside. This row
/// never finished while a transaction's changes were a sorted array kept in
/// order on every put (O(n²); `LogEntryTable`).
func runLoad(_ ctx: Context) throws {
    let ds = ctx.dataset
    func contender<E: Engine>(_ type: E.Type) -> Contender {
        Contender(name: E.name) { _ in
            let path = ctx.path("load-\(E.name).db")
            removeDatabase(path)
            let e = try E(path: path, durable: true)
            let t = try timed { try e.load(ds, 0..<ds.count) }
            e.close()
            return Double(ds.count) / t
        }
    }
    let m = try alternate("load", reps: ctx.reps, [contender(FirnEngine.self), contender(LMDBEngine.self), contender(SQLiteEngine.self)])
    let row = "load \(ds.count / 1000)k random, one txn, log on"
    // The speed issue's target against LMDB; SQLite's row keeps its 1.0.
    for (peer, target) in [("lmdb", 1.5), ("sqlite", 1.0)] {
        ctx.report.add(.higherIsBetter(row, firn: m["firn"]!, peer: peer, peerValue: m[peer]!,
                                       unit: "records/s", target: .ratioAtLeast(target)))
    }
    // The last repetition's files are the data set's files for the later workloads.
    ctx.adoptFixture(FirnEngine.self, path: ctx.path("load-firn.db"))
    ctx.adoptFixture(LMDBEngine.self, path: ctx.path("load-lmdb.db"))
    ctx.adoptFixture(SQLiteEngine.self, path: ctx.path("load-sqlite.db"))
}
