#if canImport(Glibc)
import Glibc
#endif

/// 7. compact — `firn compact -o` vs `mdb_copy -n -c` of the same records:
/// MB/s of output, through the `firn` CLI as people run it. `firn compact`
/// fsyncs its output before it renames it into place; `mdb_copy` does not
/// (it writes with `O_DIRECT`, which leaves the device's cache and the
/// file's size unsynced), so its side is timed with the fsync of its output
/// a backup job must add before it trusts the copy (issue 28 allows it; the
/// row's peer name says so).
func runCompact(_ ctx: Context) throws {
    let firnFile = try ctx.fixture(FirnEngine.self)
    guard let mdbCopy = which("mdb_copy") else {
        ctx.report.skip("compact", "mdb_copy not found (apt-get install lmdb-utils)")
        return
    }
    guard let cli = ctx.cli(for: "compact") else { return }
    let firnOut = ctx.path("compact-out.firn"), lmdbOut = ctx.path("compact-out.mdb")
    var sizes: [String: Double] = [:]
    let firn = Contender(name: "firn") { _ in
        removeDatabase(firnOut)
        let t = try runChild(cli.compact(firnFile, to: firnOut), scratch: ctx.scratch).seconds
        let size = Double(fileSize(firnOut))
        sizes["firn"] = size
        removeDatabase(firnOut)
        return size / 1e6 / t
    }
    let lmdb = Contender(name: "lmdb") { _ in
        let lmdbFile = try ctx.fixture(LMDBEngine.self)
        removeDatabase(lmdbOut)
        let t = try timed {
            try runChild([mdbCopy, "-n", "-c", lmdbFile, lmdbOut], scratch: ctx.scratch)
            try fsyncFile(lmdbOut)
        }
        let size = Double(fileSize(lmdbOut))
        sizes["lmdb"] = size
        removeDatabase(lmdbOut)
        return size / 1e6 / t
    }
    let m = try alternate("compact", reps: ctx.toolReps, [firn, lmdb])
    log("  compact output: firn \(formatBytes(sizes["firn"] ?? 0)), lmdb \(formatBytes(sizes["lmdb"] ?? 0))")
    ctx.report.add(.higherIsBetter("compact", firn: m["firn"]!, peer: "mdb_copy -n -c + fsync", peerValue: m["lmdb"]!,
                                   unit: "MB/s", target: .ratioAtLeast(1.2)))
    // The same runs in records copied per second: the two outputs hold the
    // same records in different sizes (Firn's packs fuller pages), which
    // MB/s of output counts against the smaller. No target: the issue's
    // unit is the row above.
    if let firnBytes = sizes["firn"], let lmdbBytes = sizes["lmdb"], firnBytes > 0, lmdbBytes > 0 {
        let records = Double(ctx.options.records)
        ctx.report.add(.higherIsBetter("compact (records/s)", firn: m["firn"]! * 1e6 / firnBytes * records,
                                       peer: "mdb_copy -n -c + fsync", peerValue: m["lmdb"]! * 1e6 / lmdbBytes * records,
                                       unit: "records/s", target: nil))
    }
}

/// Opens `path`, fsyncs it and closes it (what `sync FILE` does).
private func fsyncFile(_ path: String) throws {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw EngineError(description: "open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw EngineError(description: "fsync \(path): \(String(cString: strerror(errno)))") }
}
