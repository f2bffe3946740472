#if canImport(Glibc)
import Glibc
#endif

/// 8. export — `firn export FILE -o OUT` vs `lz4 -1` of the same Firn
/// file: MB/s of input (the Firn file's size). Needs the CLI: skipped with
/// a message while `firn export` does not exist.
func runExport(_ ctx: Context) throws {
    guard let cli = ctx.cli, cli.has("export") else {
        ctx.report.skip("export", ctx.cli == nil ? "no firn binary (build it, or pass --firn PATH)" : "\(ctx.cli!.path) has no export command yet")
        return
    }
    guard let lz4 = which("lz4") else {
        ctx.report.skip("export", "lz4 not found (apt-get install lz4)")
        return
    }
    let firnFile = try ctx.fixture(FirnEngine.self)
    let input = Double(fileSize(firnFile))
    let firnOut = ctx.path("export-out.firn.lz4"), lz4Out = ctx.path("export-out.lz4")
    let firn = Contender(name: "firn") { _ in
        unlink(firnOut)
        let t = try runChild(cli.export(firnFile, to: firnOut), scratch: ctx.scratch).seconds
        unlink(firnOut)
        return input / 1e6 / t
    }
    let peer = Contender(name: "lz4") { _ in
        unlink(lz4Out)
        let t = try runChild([lz4, "-1", "-q", "-f", firnFile, lz4Out], scratch: ctx.scratch).seconds
        unlink(lz4Out)
        return input / 1e6 / t
    }
    let m = try alternate("export", reps: ctx.toolReps, [firn, peer])
    ctx.report.add(.higherIsBetter("export", firn: m["firn"]!, peer: "lz4 -1", peerValue: m["lz4"]!,
                                   unit: "MB/s", target: .ratioAtLeast(1.5)))
}
