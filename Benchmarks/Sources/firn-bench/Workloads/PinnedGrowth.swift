/// 5. pinned growth — load records, one small commit, pin a read snapshot
/// (on the commit log, the default, that version is a frame of the log:
/// its checkpoint's pages and region stay while it is pinned), then many
/// small commits each overwriting random existing records; the figure is
/// the file size after / before. Firn on page commits is measured beside it. Both engines run without syncs here (Firn
/// durability .none, LMDB MDB_NOSYNC) so the run finishes quickly: syncs
/// change the time taken, not which pages are kept or reused.
/// Sizes are deterministic for a given input, so each engine runs once.
func runPinnedGrowth(_ ctx: Context) throws {
    let records = ctx.options.growthRecords
    let commits = ctx.options.growthCommits
    let perCommit = ctx.options.growthOverwrites
    let ds = Dataset(count: records, seed: 0x9_0A7)
    // The same random overwrite sequence for both engines.
    var rng = SplitMix64(seed: 0x5EED)
    var picks = [Int32](repeating: 0, count: commits * perCommit)
    for i in picks.indices { picks[i] = Int32(rng.next() % UInt64(records)) }

    func contender<E: PinningEngine>(_ type: E.Type) -> Contender {
        Contender(name: E.name) { _ in
            let path = ctx.path("growth-\(E.name).db")
            removeDatabase(path)
            let e = try E(path: path, durable: false)
            try e.load(ds, 0..<records)
            try e.overwrite(ds, picks[0..<perCommit], round: 0)
            let before = fileSize(path)
            try e.pin()
            let t = try timed {
                for c in 0..<commits {
                    try e.overwrite(ds, picks[(c * perCommit)..<((c + 1) * perCommit)], round: c + 1)
                }
            }
            e.unpin()
            e.close()
            let after = fileSize(path)
            removeDatabase(path)
            log("  growth \(E.name): \(formatBytes(Double(before))) → \(formatBytes(Double(after))) in \(formatDecimal(t, places: 1)) s")
            return Double(after) / Double(before)
        }
    }
    let m = try alternate("growth", reps: 1, [contender(FirnEngine.self), contender(FirnPageCommitsEngine.self),
                                              contender(LMDBEngine.self)])
    var f = Figure.lowerIsBetter("pinned growth, commit log (a frame pinned)", firn: m["firn"]!, peer: "lmdb",
                                 peerValue: m["lmdb"]!, unit: "x", target: .firnAtMost(2.2))
    f.note = "\(records) records, \(commits) commits × \(perCommit) overwrites, no syncs"
    ctx.report.add(f)
    var pages = Figure.lowerIsBetter("pinned growth, page commits", firn: m["firn-pages"]!, peer: "lmdb",
                                     peerValue: m["lmdb"]!, unit: "x", target: .firnAtMost(2.2))
    pages.note = f.note
    ctx.report.add(pages)
}
