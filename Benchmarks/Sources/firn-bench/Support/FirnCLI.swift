#if canImport(Glibc)
import Glibc
#endif

/// The `firn` command-line tool, as the maintenance workloads call it.
/// The argument lists follow issue 3 (`firn verify FILE`, `firn compact FILE
/// -o OUT`, `firn export FILE -o SNAPSHOT`, `firn import SNAPSHOT -o FILE`).
///
/// Whether a subcommand exists is probed with `firn SUBCOMMAND --help`, so
/// verify and compact switch from the library to the CLI by themselves once
/// the CLI has them; `--library` forces the library.
struct FirnCLI {
    let path: String
    /// Subcommands the binary answers `--help` for.
    let available: Set<String>

    static func locate(_ explicit: String?, scratch: String) -> FirnCLI? {
        let candidates = explicit.map { [$0] } ?? ["../.build/release/firn", ".build/release/firn"]
        guard let path = candidates.first(where: isExecutable) else { return nil }
        var available = Set<String>()
        for sub in ["verify", "compact", "export", "import"] {
            // A binary without the subcommand still answers --help (for itself):
            // the subcommand's own help names it in its usage line.
            let out = "\(scratch)/.probe-\(sub)"
            if let r = try? runChild([path, sub, "--help"], stdoutPath: out, scratch: scratch, check: false),
               r.status == 0, readSmallFile(out).contains("firn \(sub)") {
                available.insert(sub)
            }
            unlink(out)
        }
        return FirnCLI(path: path, available: available)
    }

    func has(_ sub: String) -> Bool { available.contains(sub) }

    func verify(_ file: String) -> [String] { [path, "verify", file] }
    func compact(_ file: String, to out: String) -> [String] { [path, "compact", file, "-o", out] }
    func export(_ file: String, to out: String) -> [String] { [path, "export", file, "-o", out] }
    func `import`(_ snapshot: String, to out: String) -> [String] { [path, "import", snapshot, "-o", out] }
}
