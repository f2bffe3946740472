#if canImport(Glibc)
import Glibc
#endif

/// 7. compact — `firn compact -o` vs `mdb_copy -c` of the same records:
/// MB/s of output, through the `firn` CLI as people run it.
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
        let t = try runChild([mdbCopy, "-n", "-c", lmdbFile, lmdbOut], scratch: ctx.scratch).seconds
        let size = Double(fileSize(lmdbOut))
        sizes["lmdb"] = size
        removeDatabase(lmdbOut)
        return size / 1e6 / t
    }
    let m = try alternate("compact", reps: ctx.reps, [firn, lmdb])
    log("  compact output: firn \(formatBytes(sizes["firn"] ?? 0)), lmdb \(formatBytes(sizes["lmdb"] ?? 0))")
    ctx.report.add(.higherIsBetter("compact", firn: m["firn"]!, peer: "mdb_copy -c", peerValue: m["lmdb"]!,
                                   unit: "MB/s", target: .ratioAtLeast(1.0)))
}
