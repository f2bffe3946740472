import FirnTestSupport

/// The built `firn`, run on files the SDK wrote.
enum FirnCommand {
    /// The built `firn`'s status, and stdout then stderr.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let outcome = try ChildProcess.run(BuiltProducts.firn, arguments)
        return (outcome.status, outcome.stdout + outcome.stderr)
    }
}
