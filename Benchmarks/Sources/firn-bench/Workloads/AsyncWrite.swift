/// `async` — issue 10's asynchronous-write rows: `count` durable
/// one-object `writeAsync` commits against as many GRDB
/// `DatabasePool.write` one-row transactions (≥ 1.0×); the same requests
/// with `allowGrouping` against ungrouped (≥ 10×); and the median time a
/// `writeAsync` call keeps its caller (≤ 20 µs). Every completion must
/// report success and every object must be stored.
func runAsyncWrite(_ ctx: Context) throws {
    let count = ctx.options.quick ? 2_000 : 10_000
    let items = SDKItems(count: count)
    var callMedians: [Double] = []
    func firn(grouped: Bool, name: String) -> Contender {
        Contender(name: name) { rep in
            let path = ctx.path("async-\(name)-\(rep).db")
            removeDatabase(path)
            let peer = try FirnSDKPeer(path: path)
            let run = try peer.writeAsync(items, count: count, grouped: grouped)
            let stored = try peer.iterate().count
            peer.close()
            removeDatabase(path)
            guard run.completed == count, stored == count else {
                throw EngineError(description: "\(name): \(run.completed) completions succeeded, \(stored) objects stored, of \(count)")
            }
            if !grouped { callMedians.append(run.medianCallSeconds) }
            return Double(count) / run.seconds
        }
    }
    func grdb(full: Bool, name: String) -> Contender { Contender(name: name) { rep in
        let path = ctx.path("async-\(name)-\(rep).db".replacingOccurrences(of: " ", with: "-"))
        removeDatabase(path)
        let peer = try GRDBPeer(path: path, synchronousFull: full)
        if rep == 0 { log("  \(name): \(try peer.settings())") }
        let t = try timed { try peer.writeEach(items, count: count) }
        let stored = try peer.iterate().count
        peer.close()
        removeDatabase(path)
        guard stored == count else { throw EngineError(description: "\(name): \(stored) objects stored of \(count)") }
        return Double(count) / t
    } }
    let m = try alternate("sdk writeAsync", reps: ctx.reps,
                          [firn(grouped: false, name: "firn"), firn(grouped: true, name: "firn grouped"),
                           grdb(full: false, name: "grdb"), grdb(full: true, name: "grdb synchronous=FULL")])
    ctx.report.add(.higherIsBetter("sdk writeAsync (durable, 1 object)", firn: m["firn"]!, peer: "grdb pool.write",
                                   peerValue: m["grdb"]!, unit: "txn/s", target: .ratioAtLeast(1.0)))
    ctx.report.add(.higherIsBetter("sdk writeAsync (durable, 1 object)", firn: m["firn"]!, peer: "grdb pool.write, FULL",
                                   peerValue: m["grdb synchronous=FULL"]!, unit: "txn/s", target: .ratioAtLeast(1.0)))
    ctx.report.add(.higherIsBetter("sdk writeAsync grouped", firn: m["firn grouped"]!, peer: "firn ungrouped",
                                   peerValue: m["firn"]!, unit: "txn/s", target: .ratioAtLeast(10.0)))
    callMedians.sort()
    let median = callMedians.isEmpty ? Double.nan : callMedians[callMedians.count / 2] * 1e6
    ctx.report.add(.lowerIsBetter("sdk writeAsync caller blocked (median)", firn: median, peer: "limit", peerValue: 20,
                                  unit: "µs", target: .firnAtMostMicroseconds(20)))
}
