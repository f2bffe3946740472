/// 4. scan — one full ordered scan of the data set, touching every value:
/// records/s, Firn vs LMDB.
func runScan(_ ctx: Context) throws {
    let n = ctx.dataset.count
    func contender<E: Engine>(_ type: E.Type) -> Contender {
        Contender(name: E.name) { _ in
            let path = try ctx.fixture(E.self)
            let e = try E(path: path, durable: true)
            defer { e.close() }
            var seen = 0
            let t = try timed { seen = try e.scan() }
            guard seen == n else { throw EngineError(description: "\(E.name) scanned \(seen) of \(n) records") }
            return Double(seen) / t
        }
    }
    let m = try alternate("scan", reps: ctx.reps, [contender(FirnEngine.self), contender(LMDBEngine.self)])
    ctx.report.add(.higherIsBetter("scan", firn: m["firn"]!, peer: "lmdb", peerValue: m["lmdb"]!,
                                   unit: "records/s", target: .ratioAtLeast(1.2)))
}
