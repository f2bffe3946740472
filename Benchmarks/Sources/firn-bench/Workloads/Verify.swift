#if canImport(Glibc)
import Glibc
#endif

/// 6. verify — Firn's verify of its data-set file vs SQLite's
/// `PRAGMA integrity_check` of the same records: MB/s of each one's own file
/// (1 MB = 10^6 bytes). Firn through `firn verify`, as people run it.
func runVerify(_ ctx: Context) throws {
    let firnFile = try ctx.fixture(FirnEngine.self)
    guard let cli = ctx.cli(for: "verify") else { return }
    let firnBytes = Double(fileSize(firnFile))
    let firn = Contender(name: "firn") { _ in
        let t = try runChild(cli.verify(firnFile), scratch: ctx.scratch).seconds
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
    let m = try alternate("verify", reps: ctx.toolReps, [firn, sqlite])
    ctx.report.add(.higherIsBetter("verify", firn: m["firn"]!, peer: "sqlite integrity_check", peerValue: m["sqlite"]!,
                                   unit: "MB/s", target: .ratioAtLeast(3.0)))
}
