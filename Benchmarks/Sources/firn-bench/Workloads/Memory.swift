#if canImport(Glibc)
import Glibc
#endif

/// 9. memory — peak RSS (GNU time's %M, in bytes) of `firn verify`,
/// `compact -o`, `export` and `import` on a file of at least 2 GiB (256 MiB
/// with --quick). The peer column is the 64 MiB limit (issue 28), so ratio > 1 means
/// under it. Needs the CLI: each command missing from it is skipped.
func runMemory(_ ctx: Context) throws {
    let limit = Double(64 << 20)
    guard let cli = ctx.cli else {
        ctx.report.skip("memory", "no firn binary (build it, or pass --firn PATH)")
        return
    }
    let commands = ["verify", "compact", "export", "import"]
    let missing = commands.filter { !cli.has($0) }
    if missing.count == commands.count {
        ctx.report.skip("memory", "\(cli.path) has none of \(commands.joined(separator: ", ")) yet")
        return
    }
    let big = ctx.path("memory-big.firn")
    try buildBigFile(big, bytes: ctx.options.memoryFileBytes)
    let size = Double(fileSize(big))
    let snapshot = ctx.path("memory-big.firn.lz4")
    for sub in commands {
        guard cli.has(sub) else {
            ctx.report.skip("memory \(sub)", "\(cli.path) has no \(sub) command yet")
            continue
        }
        let argv: [String]
        let out = ctx.path("memory-out-\(sub).firn")
        removeDatabase(out)
        switch sub {
        case "verify": argv = cli.verify(big)
        case "compact": argv = cli.compact(big, to: out)
        case "export": argv = cli.export(big, to: snapshot)
        default:
            guard fileExists(snapshot) else {
                ctx.report.skip("memory import", "no export to import")
                continue
            }
            argv = cli.import(snapshot, to: out)
        }
        // ru_maxrss of a child spawned from this (large) process starts at this
        // process's peak (vfork shares the address space until exec), so GNU
        // time, a small process, forks the command and reports its own peak.
        let rssPath = ctx.path("memory-rss-\(sub).txt")
        let r = try runChild(["/usr/bin/time", "-f", "%M", "-o", rssPath] + argv, scratch: ctx.scratch)
        let kib = Double(readSmallFile(rssPath).split(separator: "\n").last.flatMap { Double($0) } ?? 0)
        unlink(rssPath)
        guard kib > 0 else { throw EngineError(description: "no peak RSS from /usr/bin/time for \(sub)") }
        let peak = kib * 1024
        removeDatabase(out)
        log("  memory \(sub): \(formatBytes(peak)) peak RSS on \(formatBytes(size)) in \(formatDecimal(r.seconds, places: 1)) s")
        var f = Figure.lowerIsBetter("memory \(sub)", firn: peak, peer: "limit", peerValue: limit,
                                     unit: "bytes", target: .firnBelow(limit))
        f.note = "file \(formatBytes(size))"
        ctx.report.add(f)
    }
    unlink(snapshot)
    removeDatabase(big)
}

/// A Firn file of at least `bytes`: 16-byte random keys and 1,000-byte
/// values (half random), 20,000 records per transaction, no syncs.
private func buildBigFile(_ path: String, bytes: UInt64) throws {
    removeDatabase(path)
    log("building a \(formatBytes(Double(bytes))) Firn file…")
    let e = try FirnEngine(path: path, durable: false)
    defer { e.close() }
    var batch: UInt64 = 0
    while fileSize(path) < bytes {
        let ds = Dataset(count: 20_000, seed: 0xB16_0000 + batch, valueLength: 1000)
        try e.load(ds, 0..<ds.count)
        batch += 1
    }
}
