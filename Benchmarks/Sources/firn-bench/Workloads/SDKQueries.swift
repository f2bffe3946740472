/// `queries` — the Firn SDK's queries against GRDB 7 (issue 31 §2), on
/// `sdkObjects` objects of one shape: an Int primary key, a String, an
/// indexed Int `group` (1,000 objects a group for a million) and an Int
/// `value`. Each row alternates the contenders in the same run; the targets
/// are the issue's. Creating the two files is not a row.
///
/// - indexed equality: 20 queries `group == g`, each match read for `value`.
/// - unindexed range: 5 queries `value` in a range holding ~1% of the
///   objects, each match read.
/// - sort by two keys: every object by `group`, then `value` descending,
///   each read in that order.
/// - count: the objects with `value` below half its range (a condition,
///   so both sides visit every record).
/// - sum: of every object's `value`.
func runSDKQueries(_ ctx: Context) throws {
    let n = ctx.options.sdkObjects
    log("generating \(n) objects…")
    let items = QueryItems(count: n)
    let groups = (0..<20).map { $0 * 37 % QueryItems.groups }
    let ranges = (0..<5).map { i in (i * 150_000)...(i * 150_000 + 9_999) }
    let expectedEquality = items.expectedEquality(groups)
    let expectedRange = items.expectedRange(ranges)
    let expectedSorted = items.expectedSorted()
    let expectedBelow = items.values.filter { $0 < 500_000 }.count
    let expectedSum = items.values.reduce(0, &+)

    var fixtures: [String: String] = [:]
    func create<P: QueryPeer>(_ type: P.Type) throws {
        let path = ctx.path("queries-\(P.name).db")
        removeDatabase(path)
        let peer = try P(path: path)
        let t = try timed { try peer.create(items) }
        peer.close()
        log("  created \(n) \(P.name) objects in \(formatDecimal(t, places: 1)) s")
        fixtures[P.name] = path
    }
    try create(FirnSDKQueryPeer.self)
    if !firnOnly { try create(GRDBQueryPeer.self) }

    /// A contender that opens its file, runs `body` once (timed) and checks
    /// what it found; returns `work` ÷ the seconds taken.
    func contender<P: QueryPeer, R: Equatable>(_ type: P.Type, _ what: String, work: Double, expected: R,
                                                _ body: @escaping (P) throws -> R) -> Contender {
        Contender(name: P.name) { _ in
            guard let path = fixtures[P.name] else { throw EngineError(description: "no \(P.name) file for \(what)") }
            let peer = try P(path: path)
            defer { peer.close() }
            var found: R?
            let t = try timed { found = try body(peer) }
            guard found == expected else {
                throw EngineError(description: "\(P.name) \(what) found \(String(describing: found)), expected \(expected)")
            }
            return work / t
        }
    }
    func row<R: Equatable>(_ name: String, unit: String, work: Double, target: Double, expected: R,
                           firn: @escaping (FirnSDKQueryPeer) throws -> R, grdb: @escaping (GRDBQueryPeer) throws -> R) throws {
        let measured = try alternate(name, reps: ctx.reps, [
            contender(FirnSDKQueryPeer.self, name, work: work, expected: expected, firn),
            contender(GRDBQueryPeer.self, name, work: work, expected: expected, grdb),
        ])
        ctx.report.add(.higherIsBetter(name, firn: measured["firn"]!, peer: "grdb", peerValue: measured["grdb"]!,
                                       unit: unit, target: .ratioAtLeast(target)))
    }

    struct Pair: Equatable { let count: Int, sum: Int }
    try row("sdk query indexed equality", unit: "queries/s", work: Double(groups.count), target: 2.0,
            expected: Pair(count: expectedEquality.count, sum: expectedEquality.sum),
            firn: { let r = try $0.indexedEquality(groups); return Pair(count: r.count, sum: r.sum) },
            grdb: { let r = try $0.indexedEquality(groups); return Pair(count: r.count, sum: r.sum) })
    try row("sdk query range (unindexed)", unit: "queries/s", work: Double(ranges.count), target: 2.0,
            expected: Pair(count: expectedRange.count, sum: expectedRange.sum),
            firn: { let r = try $0.unindexedRange(ranges); return Pair(count: r.count, sum: r.sum) },
            grdb: { let r = try $0.unindexedRange(ranges); return Pair(count: r.count, sum: r.sum) })
    try row("sdk sort by two keys", unit: "objects/s", work: Double(n), target: 1.5,
            expected: Pair(count: expectedSorted.count, sum: expectedSorted.checksum),
            firn: { let r = try $0.sortedByTwoKeys(); return Pair(count: r.count, sum: r.checksum) },
            grdb: { let r = try $0.sortedByTwoKeys(); return Pair(count: r.count, sum: r.checksum) })
    try row("sdk count (condition)", unit: "objects/s", work: Double(n), target: 2.0, expected: expectedBelow,
            firn: { try $0.count(valueBelow: 500_000) }, grdb: { try $0.count(valueBelow: 500_000) })
    try row("sdk sum", unit: "objects/s", work: Double(n), target: 2.0, expected: expectedSum,
            firn: { try $0.sumOfValues() }, grdb: { try $0.sumOfValues() })
    for path in fixtures.values { removeDatabase(path) }
}
