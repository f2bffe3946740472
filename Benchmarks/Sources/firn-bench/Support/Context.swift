/// What every workload shares: options, the scratch directory, the data
/// set, the 1M-record files (fixtures), the CLI, and the report.
final class Context {
    let options: Options
    let scratch: String
    let cli: FirnCLI?
    let report = Report()
    private var cachedDataset: Dataset?
    private var fixtures: [String: String] = [:]

    init(options: Options, scratch: String, cli: FirnCLI?) {
        self.options = options
        self.scratch = scratch
        self.cli = cli
    }

    var reps: Int { options.reps }

    /// Repetitions of the toolkit rows that run `firn` against a command
    /// line peer (verify, compact, export): each run takes under a second,
    /// where a shared machine's noise moves a median of 3 by a fifth, so 7
    /// unless `--repetitions` says otherwise.
    var toolReps: Int { options.repetitions ?? 7 }

    /// The records of load, get, scan, verify, compact and export.
    var dataset: Dataset {
        if let d = cachedDataset { return d }
        log("generating \(options.records) records…")
        let d = Dataset(count: options.records, seed: 0xF1F1_2024)
        cachedDataset = d
        return d
    }

    func path(_ name: String) -> String { "\(scratch)/\(name)" }

    /// Takes over a file the load workload made, as the fixture of its engine.
    func adoptFixture<E: Engine>(_ type: E.Type, path: String) {
        fixtures[E.name] = path
    }

    /// The data set loaded into `E`'s file (durably, one transaction);
    /// built when no load workload left one.
    func fixture<E: Engine>(_ type: E.Type) throws -> String {
        if let p = fixtures[E.name] { return p }
        let p = path("fixture-\(E.name).db")
        removeDatabase(p)
        log("building the \(E.name) file of \(options.records) records…")
        let e = try E(path: p, durable: true)
        try e.load(dataset, 0..<dataset.count)
        e.close()
        fixtures[E.name] = p
        return p
    }

    /// The `firn` CLI when it has `sub`; else nil, and the row is reported
    /// skipped (verify and compact are measured as people run them).
    func cli(for sub: String) -> FirnCLI? {
        guard let cli, cli.has(sub) else {
            report.skip(sub, "needs the firn CLI with `\(sub)` (--firn PATH)")
            return nil
        }
        return cli
    }
}
