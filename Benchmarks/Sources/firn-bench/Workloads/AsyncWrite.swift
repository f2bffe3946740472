#if canImport(Glibc)
import Glibc
#endif

/// `async` — issue 10's asynchronous-write rows: `count` durable
/// one-object `writeAsync` commits against as many GRDB
/// `DatabasePool.write` one-row transactions where GRDB has the same thing,
/// a commit synced before it completes (its writer at synchronous=FULL,
/// ≥ 1.0×); the same requests with `allowGrouping` against ungrouped
/// (≥ 10×); and the median time a `writeAsync` call keeps its caller
/// (≤ 20 µs). GRDB's default writer (WAL, synchronous=NORMAL) syncs no
/// commit one by one: it is reported, without a target, beside Firn's
/// durable requests and beside its grouped ones (which also sync once per
/// run, not per commit). Every completion must report success and every
/// object must be stored.
///
/// Twice, like the commit rows (issue 8: a disk that really flushes): as
/// they are, and with every fsync and fdatasync delayed by 1 ms through the
/// same `LD_PRELOAD` shim. Each contender runs in a child process
/// (`--async-child`) so the shim applies to it alone.
func runAsyncWrite(_ ctx: Context) throws {
    let count = ctx.options.quick ? 2_000 : 10_000
    let shim = try SyncDelayShim.build(scratch: ctx.scratch)
    let exe = selfExecutable()
    var callMedians: [Double] = []
    for (suffix, delay) in [("", 0), (", sync +1 ms", 1000)] {
        func contender(_ name: String) -> Contender {
            Contender(name: name) { rep in
                let path = ctx.path("async-\(name)-\(rep).db".replacingOccurrences(of: " ", with: "-"))
                let out = ctx.path("async-\(name).out".replacingOccurrences(of: " ", with: "-"))
                removeDatabase(path)
                try runChild([exe, asyncChildFlag, name, path, String(count)], stdoutPath: out, scratch: ctx.scratch,
                             environment: ["LD_PRELOAD": shim, "FIRN_BENCH_SYNC_DELAY_US": String(delay)])
                removeDatabase(path)
                let fields = numbers(in: out, as: Double.self)
                unlink(out)
                guard let rate = fields.first else { throw EngineError(description: "\(name) async child printed nothing") }
                if name == "firn", delay == 0, fields.count >= 2 { callMedians.append(fields[1]) }
                return rate
            }
        }
        let m = try alternate("sdk writeAsync" + suffix, reps: ctx.reps,
                              ["firn", "firn grouped", "grdb", "grdb synchronous=FULL"].map(contender))
        ctx.report.add(.higherIsBetter("sdk writeAsync (durable, 1 object\(suffix))", firn: m["firn"]!, peer: "grdb pool.write",
                                       peerValue: m["grdb"]!, unit: "txn/s", target: nil))
        ctx.report.add(.higherIsBetter("sdk writeAsync (durable, 1 object\(suffix))", firn: m["firn"]!, peer: "grdb pool.write, FULL",
                                       peerValue: m["grdb synchronous=FULL"]!, unit: "txn/s", target: .ratioAtLeast(1.0)))
        ctx.report.add(.higherIsBetter("sdk writeAsync grouped" + (delay == 0 ? "" : " (sync +1 ms)"), firn: m["firn grouped"]!,
                                       peer: "firn ungrouped", peerValue: m["firn"]!, unit: "txn/s", target: .ratioAtLeast(10.0)))
        ctx.report.add(.higherIsBetter("sdk writeAsync grouped" + (delay == 0 ? "" : " (sync +1 ms)"), firn: m["firn grouped"]!,
                                       peer: "grdb pool.write", peerValue: m["grdb"]!, unit: "txn/s", target: nil))
    }
    callMedians.sort()
    let median = callMedians.isEmpty ? Double.nan : callMedians[callMedians.count / 2] * 1e6
    ctx.report.add(.lowerIsBetter("sdk writeAsync caller blocked (median)", firn: median, peer: "limit", peerValue: 20,
                                  unit: "µs", target: .firnAtMostMicroseconds(20)))
}

/// The hidden first argument that makes the bench an async-write child.
let asyncChildFlag = "--async-child"

/// One contender of `runAsyncWrite` in this (child) process: `count`
/// requests, every completion and every stored object checked; prints the
/// rate and (Firn) the median seconds a `writeAsync` call kept its caller.
func runAsyncChild(_ args: [String]) -> Never {
    let (name, path, count) = childArguments(args, flag: asyncChildFlag, subject: "CONTENDER")
    let items = SDKItems(count: count)
    do {
        switch name {
        case "firn", "firn grouped":
            let peer = try FirnSDKPeer(path: path)
            let run = try peer.writeAsync(items, count: count, grouped: name == "firn grouped")
            let stored = try peer.iterate().count
            peer.close()
            guard run.completed == count, stored == count else {
                throw EngineError(description: "\(name): \(run.completed) completions succeeded, \(stored) objects stored, of \(count)")
            }
            print("\(Double(count) / run.seconds) \(run.medianCallSeconds)")
        case "grdb", "grdb synchronous=FULL":
            let peer = try GRDBPeer(path: path, synchronousFull: name != "grdb")
            fputs("  \(name): \(try peer.settings())\n", stderr)
            let t = try timed { try peer.writeEach(items, count: count) }
            let stored = try peer.iterate().count
            peer.close()
            guard stored == count else { throw EngineError(description: "\(name): \(stored) objects stored of \(count)") }
            print("\(Double(count) / t)")
        default:
            throw EngineError(description: "unknown async contender \(name)")
        }
        exit(0)
    } catch {
        fputs("async child \(name): \(error)\n", stderr)
        exit(1)
    }
}
