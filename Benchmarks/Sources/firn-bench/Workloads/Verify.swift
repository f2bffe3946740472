#if canImport(Glibc)
import Glibc
#endif

/// 6. verify — Firn's verify of its data-set file vs SQLite's
/// `PRAGMA integrity_check` of the same records: MB/s of each one's own file
/// (1 MB = 10^6 bytes). Firn through `firn verify` when the CLI has it,
/// else through FirnCore's Verifier (marked "library").
func runVerify(_ ctx: Context) throws {
    let firnFile = try ctx.fixture(FirnEngine.self)
    let useCLI = ctx.usesCLI("verify")
    let firnBytes = Double(fileSize(firnFile))
    let firn = Contender(name: "firn") { _ in
        let t: Double
        if useCLI, let cli = ctx.cli {
            t = try runChild(cli.verify(firnFile), scratch: ctx.scratch).seconds
        } else {
            t = try timed { try FirnLibrary.verify(firnFile) }
        }
        return firnBytes / 1e6 / t
    }
    let sqlite = Contender(name: "sqlite") { _ in
        let sqliteFile = try ctx.fixture(SQLiteEngine.self)
        let sqliteBytes = Double(fileSize(sqliteFile))
        let t = try timed {
            let db = try SQLiteEngine(path: sqliteFile, durable: true)
            defer { db.close() }
            try db.integrityCheck()
        }
        return sqliteBytes / 1e6 / t
    }
    let m = try alternate("verify", reps: ctx.reps, [firn, sqlite])
    ctx.report.add(.higherIsBetter("verify", firn: m["firn"]!, peer: "sqlite integrity_check", peerValue: m["sqlite"]!,
                                   unit: "MB/s", target: .ratioAtLeast(2.0), mode: useCLI ? "" : "library"))
}
