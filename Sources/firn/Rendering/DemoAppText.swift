import FirnDemo

/// The lines of the demo's application processes (`firn demo-app`).
enum DemoAppText {
    static func written(_ report: DemoAppCommand.Write.Report, file: String) -> [String] {
        ["\(file): \(report.commits) commit(s), now at version \(report.version) (\(report.people) people, \(report.dogs) dogs)"]
    }

    /// The line `firn demo` waits for before it goes on.
    static func cached(_ report: FrozenCache.Report) -> [String] {
        ["cached \(report.frozenObjects) frozen Dog objects of version \(report.version) (pid \(report.pid))"]
    }
}
