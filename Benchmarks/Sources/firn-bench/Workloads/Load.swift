/// 1. load — the data set in one write transaction, random key order,
/// committed durably: records/s, Firn vs LMDB and SQLite. Open and close
/// are outside the clock; the commit (and its syncs) is inside.
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
    for peer in ["lmdb", "sqlite"] {
        ctx.report.add(.higherIsBetter("load", firn: m["firn"]!, peer: peer, peerValue: m[peer]!,
                                       unit: "records/s", target: .ratioAtLeast(1.0)))
    }
    // The last repetition's files are the data set's files for the later workloads.
    ctx.adoptFixture(FirnEngine.self, path: ctx.path("load-firn.db"))
    ctx.adoptFixture(LMDBEngine.self, path: ctx.path("load-lmdb.db"))
    ctx.adoptFixture(SQLiteEngine.self, path: ctx.path("load-sqlite.db"))
}
