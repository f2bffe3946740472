/// 3. get — every record of the data set read once, in a random order, in
/// one snapshot / read transaction: reads/s, Firn vs LMDB and SQLite.
func runGet(_ ctx: Context) throws {
    let ds = ctx.dataset
    let order = ds.shuffledIndices(seed: 0x6E7)
    func contender<E: Engine>(_ type: E.Type) -> Contender {
        Contender(name: E.name) { _ in
            let path = try ctx.fixture(E.self)
            let e = try E(path: path, durable: true)
            defer { e.close() }
            var found = 0
            let t = try timed { found = try e.readAll(ds, order: order) }
            guard found == ds.count else { throw EngineError(description: "\(E.name) found \(found) of \(ds.count) keys") }
            return Double(order.count) / t
        }
    }
    let m = try alternate("get", reps: ctx.reps, [contender(FirnEngine.self), contender(LMDBEngine.self), contender(SQLiteEngine.self)])
    // Issue 28's target against LMDB; SQLite's row keeps its 1.0.
    for (peer, target) in [("lmdb", 1.5), ("sqlite", 1.0)] {
        ctx.report.add(.higherIsBetter("get", firn: m["firn"]!, peer: peer, peerValue: m[peer]!,
                                       unit: "reads/s", target: .ratioAtLeast(target)))
    }
}
