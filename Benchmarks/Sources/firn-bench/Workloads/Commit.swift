/// 2. commit — durable transactions of one record each into a new file:
/// transactions/s, Firn (.full: two fdatasyncs) vs LMDB (default sync) and
/// SQLite (WAL, synchronous=FULL).
func runCommit(_ ctx: Context) throws {
    let n = ctx.options.commits
    let ds = Dataset(count: n, seed: 0xC0_3317)
    func contender<E: Engine>(_ type: E.Type) -> Contender {
        Contender(name: E.name) { _ in
            let path = ctx.path("commit-\(E.name).db")
            removeDatabase(path)
            let e = try E(path: path, durable: true)
            let t = try timed { try e.putEach(ds, 0..<n) }
            e.close()
            removeDatabase(path)
            return Double(n) / t
        }
    }
    let m = try alternate("commit", reps: ctx.reps, [contender(FirnEngine.self), contender(LMDBEngine.self), contender(SQLiteEngine.self)])
    for peer in ["lmdb", "sqlite"] {
        ctx.report.add(.higherIsBetter("commit", firn: m["firn"]!, peer: peer, peerValue: m[peer]!,
                                       unit: "txn/s", target: .ratioAtLeast(1.0)))
    }
}
