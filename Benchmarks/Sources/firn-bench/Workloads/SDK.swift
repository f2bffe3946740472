#if canImport(Glibc)
import Glibc
#endif

/// 11. sdk — the Firn SDK (objects, live and frozen results) against GRDB 7
/// (DatabasePool, WAL, Codable records), on objects of one shape: an Int
/// primary key, a String and an Int (issue 9). Each row alternates the
/// contenders in the same run; the targets are the issue's.
///
/// - create: `count` new objects in one write transaction, committed durably.
/// - get: every object once by primary key, random order, reading `value`;
///   GRDB twice: `fetchOne(db, key:)` as its documentation shows (it
///   prepares its SELECT on every call) and with one cached statement.
/// - iterate: every object in key order, reading `value`.
/// - frozen: frozen results iterated on 2 threads at once (each reads every
///   object) against 1 thread: objects/s of both threads together.
/// - peak RSS: a child process opens the file, iterates every object
///   reading `value`, and reports its VmHWM (objects are views, not copies).
func runSDK(_ ctx: Context) throws {
    let n = ctx.options.sdkObjects
    log("generating \(n) objects…")
    let items = SDKItems(count: n)
    let order = items.shuffledIDs(seed: 0x5D_6E7)
    let expectedSum = items.valueSum
    var fixtures: [String: String] = [:]

    func creating<P: ObjectPeer>(_ type: P.Type) -> Contender {
        Contender(name: P.name) { rep in
            let path = ctx.path("sdk-\(P.name)-\(rep).db")
            removeDatabase(path)
            let peer = try P(path: path)
            if let grdb = peer as? GRDBPeer, rep == 0 { log("  grdb: \(try grdb.settings())") }
            let t = try timed { try peer.create(items) }
            peer.close()
            if let old = fixtures[P.name] { removeDatabase(old) }
            fixtures[P.name] = path
            return Double(n) / t
        }
    }
    let created = try alternate("sdk create", reps: ctx.reps, [creating(FirnSDKPeer.self), creating(GRDBPeer.self)])
    ctx.report.add(.higherIsBetter("sdk create (1 write)", firn: created["firn"]!, peer: "grdb", peerValue: created["grdb"]!,
                                   unit: "objects/s", target: .ratioAtLeast(2.0)))

    func fixture(_ name: String) throws -> String {
        guard let path = fixtures[name] else { throw EngineError(description: "no \(name) file from sdk create") }
        return path
    }

    func getting<P: ObjectPeer>(_ type: P.Type) -> Contender {
        Contender(name: P.name) { _ in
            let peer = try P(path: try fixture(P.name))
            defer { peer.close() }
            var result = (found: 0, sum: 0)
            let t = try timed { result = try peer.get(order) }
            guard result.found == n, result.sum == expectedSum else {
                throw EngineError(description: "\(P.name) get found \(result.found) of \(n), sum \(result.sum) (expected \(expectedSum))")
            }
            return Double(n) / t
        }
    }
    let cachedStatement = Contender(name: "grdb cached statement") { _ in
        let peer = try GRDBPeer(path: try fixture(GRDBPeer.name))
        defer { peer.close() }
        var result = (found: 0, sum: 0)
        let t = try timed { result = try peer.getWithCachedStatement(order) }
        guard result.found == n, result.sum == expectedSum else {
            throw EngineError(description: "grdb cached get found \(result.found) of \(n), sum \(result.sum)")
        }
        return Double(n) / t
    }
    let got = try alternate("sdk get", reps: ctx.reps, [getting(FirnSDKPeer.self), getting(GRDBPeer.self), cachedStatement])
    ctx.report.add(.higherIsBetter("sdk get by key (random)", firn: got["firn"]!, peer: "grdb", peerValue: got["grdb"]!,
                                   unit: "objects/s", target: .ratioAtLeast(2.0)))
    ctx.report.add(.higherIsBetter("sdk get by key (random)", firn: got["firn"]!, peer: "grdb cached statement",
                                   peerValue: got["grdb cached statement"]!, unit: "objects/s", target: .ratioAtLeast(2.0)))

    func iterating<P: ObjectPeer>(_ type: P.Type) -> Contender {
        Contender(name: P.name) { _ in
            let peer = try P(path: try fixture(P.name))
            defer { peer.close() }
            var result = (count: 0, sum: 0)
            let t = try timed { result = try peer.iterate() }
            guard result.count == n, result.sum == expectedSum else {
                throw EngineError(description: "\(P.name) iterated \(result.count) of \(n), sum \(result.sum) (expected \(expectedSum))")
            }
            return Double(n) / t
        }
    }
    let iterated = try alternate("sdk iterate", reps: ctx.reps, [iterating(FirnSDKPeer.self), iterating(GRDBPeer.self)])
    ctx.report.add(.higherIsBetter("sdk iterate (1 property)", firn: iterated["firn"]!, peer: "grdb", peerValue: iterated["grdb"]!,
                                   unit: "objects/s", target: .ratioAtLeast(3.0)))

    // Each thread reads the results `frozenPasses` times and the row takes
    // at least `frozenReps` repetitions: on this 2-core virtual machine a
    // core's speed drifts by half from one second to the next (the same
    // pass took 265 to 525 ms of thread CPU time, no page faults or system
    // time to explain it), and the 2-thread side waits for its slower core.
    // The CPU time per object shows whether the threads slow each other.
    let frozenPasses = 3, frozenReps = max(ctx.reps, 5)
    var cpuPerObject: [String: [Double]] = [:]
    func frozen(threads: Int, name: String) -> Contender {
        Contender(name: name) { _ in
            let peer = try FirnSDKPeer(path: try fixture(FirnSDKPeer.name))
            defer { peer.close() }
            let (t, sums, cpu) = try peer.frozenIterate(threads: threads, passes: frozenPasses)
            guard sums.allSatisfy({ $0 == expectedSum }) else {
                throw EngineError(description: "frozen iterate on \(threads) threads: sums \(sums) (expected \(expectedSum))")
            }
            cpuPerObject[name, default: []].append(cpu)
            return Double(n * threads * frozenPasses) / t
        }
    }
    // "firn" is the 2-thread side, so --firn-only still measures it.
    let scaled = try alternate("sdk frozen", reps: frozenReps, [frozen(threads: 2, name: "firn"), frozen(threads: 1, name: "firn 1 thread")])
    ctx.report.add(.higherIsBetter("sdk frozen iterate, 2 threads", firn: scaled["firn"]!, peer: "firn 1 thread",
                                   peerValue: scaled["firn 1 thread"]!, unit: "objects/s", target: .ratioAtLeast(1.8)))
    let cpuLine = ["firn 1 thread", "firn"].map { name in
        "\(name == "firn" ? "2 threads" : "1 thread") \(formatDecimal(cpuPerObject[name].map(median) ?? .nan, places: 0)) ns"
    }.joined(separator: ", ")
    log("   sdk frozen: CPU time per object read (median): \(cpuLine)")
    ctx.report.header.append("sdk frozen: CPU per object \(cpuLine)")

    // Peak RSS: one child per repetition and library, the median kept.
    let exe = selfExecutable()
    func memory(_ name: String) -> Contender {
        Contender(name: name) { _ in
            let out = ctx.path("sdk-memory-\(name).out")
            try runChild([exe, sdkMemoryChildFlag, name, try fixture(name)], stdoutPath: out, scratch: ctx.scratch)
            let fields = numbers(in: out, as: Int.self)
            unlink(out)
            guard fields.count == 4, fields[2] == n, fields[3] == expectedSum else {
                throw EngineError(description: "\(name) memory child printed \(fields) (expected \(n) objects, sum \(expectedSum))")
            }
            log("  sdk peak RSS \(name): \(formatBytes(Double(fields[1]))) (\(formatBytes(Double(fields[0]))) after open)")
            return Double(fields[1])
        }
    }
    let rss = try alternate("sdk peak RSS", reps: ctx.reps, [memory("firn"), memory("grdb")])
    var f = Figure.lowerIsBetter("sdk iterate peak RSS", firn: rss["firn"]!, peer: "grdb", peerValue: rss["grdb"]!,
                                 unit: "bytes", target: .firnAtMostBytes(Double(64 << 20)))
    f.note = "\(n) objects, VmHWM of a child process"
    ctx.report.add(f)
    for path in fixtures.values { removeDatabase(path) }
}

/// The hidden first argument that makes the bench a peak-RSS child.
let sdkMemoryChildFlag = "--sdk-memory-child"

/// Opens `path` with the library `engine`, iterates every object reading
/// `value`, and prints: VmHWM after open, VmHWM at the end (bytes), the
/// objects seen and the values' sum.
func runSDKMemoryChild(_ args: [String]) -> Never {
    guard args.count == 2 else {
        fputs("usage: firn-bench \(sdkMemoryChildFlag) firn|grdb PATH\n", stderr)
        exit(64)
    }
    do {
        let peer: any ObjectPeer = args[0] == "grdb" ? try GRDBPeer(path: args[1]) : try FirnSDKPeer(path: args[1])
        let opened = peakResidentBytes()
        let (count, sum) = try peer.iterate()
        let peak = peakResidentBytes()
        peer.close()
        print("\(opened) \(peak) \(count) \(sum)")
        exit(0)
    } catch {
        fputs("\(error)\n", stderr)
        exit(1)
    }
}

/// VmHWM of this process from /proc/self/status, in bytes.
func peakResidentBytes() -> Int {
    for line in readSmallFile("/proc/self/status").split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return (Int(String(digits)) ?? 0) * 1024
    }
    return 0
}
