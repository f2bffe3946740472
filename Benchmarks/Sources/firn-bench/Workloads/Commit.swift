#if canImport(Glibc)
import Glibc
#endif
import FirnCore

/// 2. commit — durable transactions of one record each into a new file:
/// transactions/s, Firn (.full: one fdatasync per commit) vs LMDB (default
/// sync) and SQLite (WAL, synchronous=FULL). Measured twice: with the
/// machine's own sync (this virtual disk acknowledges fdatasync in µs), and
/// with every engine's fsync and fdatasync delayed by 1 ms, as a laptop SSD
/// that really flushes would behave. Each engine runs in a child process of
/// the bench with the same `LD_PRELOAD` shim (`SyncDelayShim`; delay 0 in
/// the first mode, where it only counts the syncs). Firn `.twoPhase` is
/// shown for comparison. Grouped commits (issue 8 §2): the same one-record
/// transactions committed `.deferred` in groups of 100, with one
/// `Store.sync()` per group, against ungrouped `.full` (target ≥ 10×).
/// Firn's default commits through the commit log (docs/COMMIT-PATH.md); its
/// page commits (`commitLogPages` 0) are measured beside it, ungrouped and
/// grouped, without a target. The grouped row is measured once more with
/// five times the commits (random keys): a tree large enough that the
/// commit log's entry budget, not the region's room, ends its epochs.
func runCommit(_ ctx: Context) throws {
    let n = ctx.options.commits
    let shim = try SyncDelayShim.build(scratch: ctx.scratch)
    let exe = selfExecutable()
    for (row, delay) in [("commit", 0), ("commit (sync +1 ms)", 1000)] {
        var syncs: [String: Double] = [:]
        var pages: [String: Double] = [:]
        func contender(_ engine: String) -> Contender {
            Contender(name: engine) { _ in
                let count = ctx.path("commit-\(engine).syncs")
                let fields = try commitChildFigures(ctx, executable: exe, engine: engine, file: "commit-\(engine)", commits: n,
                                                    environment: ["LD_PRELOAD": shim, "FIRN_BENCH_SYNC_DELAY_US": String(delay),
                                                                  "FIRN_BENCH_SYNC_COUNT_FILE": count])
                if fields.count >= 2 { pages[engine] = fields[1] }
                syncs[engine] = (Double(readSmallFile(count).filter(\.isNumber)) ?? .nan) / Double(n)
                unlink(count)
                return fields[0]
            }
        }
        let engines = ["firn", "firn-2phase", "firn-pages", "firn-grouped", "firn-pages-grouped", "lmdb", "sqlite"]
        let m = try alternate(row, reps: ctx.reps, engines.map(contender))
        ctx.report.add(.higherIsBetter(delay == 0 ? "grouped commit (100/sync)" : "grouped commit (100/sync, sync +1 ms)",
                                       firn: m["firn-grouped"]!, peer: "firn ungrouped", peerValue: m["firn"]!,
                                       unit: "txn/s", target: .ratioAtLeast(10.0)))
        for peer in ["lmdb", "sqlite"] {
            ctx.report.add(.higherIsBetter(row, firn: m["firn"]!, peer: peer, peerValue: m[peer]!,
                                           unit: "txn/s", target: .ratioAtLeast(1.0)))
        }
        ctx.report.add(.higherIsBetter(row, firn: m["firn"]!, peer: "firn .twoPhase", peerValue: m["firn-2phase"]!,
                                       unit: "txn/s", target: nil))
        // Page commits (no commit log): against the same peers, no target.
        for peer in ["lmdb", "sqlite"] {
            ctx.report.add(.higherIsBetter("\(row), page commits", firn: m["firn-pages"]!, peer: peer,
                                           peerValue: m[peer]!, unit: "txn/s", target: nil))
        }
        ctx.report.add(.higherIsBetter(
            delay == 0 ? "grouped commit (100/sync), page commits" : "grouped commit (100/sync, sync +1 ms), page commits",
            firn: m["firn-pages-grouped"]!, peer: "firn pages ungrouped", peerValue: m["firn-pages"]!, unit: "txn/s", target: nil))
        let pagesPerCommit = ["firn", "firn-pages"].map { "\($0) \(formatDecimal(pages[$0] ?? .nan, places: 2))" }.joined(separator: ", ")
        let perCommit = engines.map { "\($0) \(formatDecimal(syncs[$0] ?? .nan, places: 2))" }
        log("   \(row): syncs per commit (fsync+fdatasync, whole process incl. open/close): \(perCommit.joined(separator: ", ")); "
            + "Firn pages written per commit: \(pagesPerCommit)")
        ctx.report.header.append("\(row): syncs/commit \(perCommit.joined(separator: ", ")); Firn pages/commit \(pagesPerCommit)")
    }
    try runLargerTreeGroupedCommit(ctx, commits: n * 5, executable: exe)
}

/// The grouped row with `commits` commits of random keys, grouped and
/// ungrouped alternating, the machine's own sync: the tree grows past the
/// region's pages, so the entry budget decides when the log checkpoints.
func runLargerTreeGroupedCommit(_ ctx: Context, commits: Int, executable exe: String) throws {
    func contender(_ engine: String) -> Contender {
        Contender(name: engine) { _ in
            try commitChildFigures(ctx, executable: exe, engine: engine, file: "commit-large-\(engine)", commits: commits)[0]
        }
    }
    let row = "grouped commit (100/sync), \(formatNumber(Double(commits))) commits"
    let m = try alternate(row, reps: ctx.reps, ["firn-grouped", "firn"].map(contender))
    ctx.report.add(.higherIsBetter(row, firn: m["firn-grouped"]!, peer: "firn ungrouped", peerValue: m["firn"]!,
                                   unit: "txn/s", target: .ratioAtLeast(10.0)))
}

/// Runs one commit child (`engine` putting `commits` records into a new
/// file named `file` in the scratch directory, removed after) with
/// `environment` added; returns what it printed: txn/s first, never empty.
func commitChildFigures(_ ctx: Context, executable exe: String, engine: String, file: String, commits: Int,
                        environment: [String: String] = [:]) throws -> [Double] {
    let path = ctx.path("\(file).db"), out = ctx.path("\(file).out")
    removeDatabase(path)
    try runChild([exe, commitChildFlag, engine, path, String(commits)], stdoutPath: out, scratch: ctx.scratch,
                 environment: environment)
    removeDatabase(path)
    let fields = numbers(in: out, as: Double.self)
    unlink(out)
    guard !fields.isEmpty else { throw EngineError(description: "\(engine) commit child printed nothing") }
    return fields
}

/// The hidden first argument that makes the bench a commit child.
let commitChildFlag = "--commit-child"

/// The commit child: `firn-bench --commit-child ENGINE PATH N` puts N
/// records, one transaction each, and prints "txn/s [pages/commit]".
func runCommitChild(_ args: [String]) -> Never {
    let (engine, path, n) = childArguments(args, flag: commitChildFlag, subject: "ENGINE")
    let ds = Dataset(count: n, seed: 0xC0_3317)
    do {
        switch engine {
        case "firn", "firn-2phase", "firn-pages":
            let pageSize = StoreOptions().pageSize
            final class Slot: @unchecked Sendable { var io: CountingIO? }
            let counter = Slot()
            let e = try FirnEngine(path: path, durability: engine == "firn-2phase" ? .twoPhase : .full, wrapIO: { base in
                let c = CountingIO(base, pageSize: pageSize)
                counter.io = c
                return c
            }, pageCommits: engine == "firn-pages")
            let before = counter.io?.pages ?? 0
            let t = try timed { try e.putEach(ds, 0..<n) }
            let after = counter.io?.pages ?? 0
            e.close()
            print("\(Double(n) / t) \(Double(after - before) / Double(n))")
        case "firn-grouped", "firn-pages-grouped":
            let e = try FirnEngine(path: path, durability: .full, wrapIO: { $0 },
                                   pageCommits: engine == "firn-pages-grouped")
            let t = try timed {
                for i in 0..<n {
                    let txn = try e.store.beginWriteBlocking()
                    guard let tree = try txn.tree("kv") else { throw EngineError(description: "no tree") }
                    try tree.put(Array(ds.key(i)), Array(ds.value(i)))
                    try txn.commit(durability: .deferred)
                    if i % 100 == 99 || i == n - 1 { try e.store.sync() }
                }
            }
            e.close()
            print("\(Double(n) / t)")
        case "lmdb":
            let e = try LMDBEngine(path: path, durable: true)
            let t = try timed { try e.putEach(ds, 0..<n) }
            e.close()
            print("\(Double(n) / t)")
        case "sqlite":
            let e = try SQLiteEngine(path: path, durable: true)
            let t = try timed { try e.putEach(ds, 0..<n) }
            e.close()
            print("\(Double(n) / t)")
        default:
            fputs("unknown engine \(engine)\n", stderr)
            exit(64)
        }
    } catch {
        fputs("\(error)\n", stderr)
        exit(1)
    }
    exit(0)
}

/// This executable's path, to run it again as a child.
func selfExecutable() -> String {
    var buf = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buf, buf.count - 1)
    return n > 0 ? String(cString: buf) : CommandLine.arguments[0]
}

/// The arguments of a child mode, `FLAG SUBJECT PATH N` (N > 0); a
/// malformed line prints the usage and exits 64.
func childArguments(_ args: [String], flag: String, subject: String) -> (subject: String, path: String, count: Int) {
    guard args.count == 3, let n = Int(args[2]), n > 0 else {
        fputs("usage: firn-bench \(flag) \(subject) PATH N\n", stderr)
        exit(64)
    }
    return (args[0], args[1], n)
}
