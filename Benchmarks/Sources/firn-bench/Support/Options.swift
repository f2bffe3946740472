#if canImport(Glibc)
import Glibc
#endif

/// Command-line options and the sizes they imply.
struct Options {
    var quick = false
    var only: Set<String>? = nil
    var repetitions: Int? = nil
    var dir: String? = nil
    var firn: String? = nil
    var keep = false
    /// Profiling aid: run only Firn's side of each workload (no figures written).
    var firnOnly = false
    var output = "bench-results.jsonl"

    static let workloads = ["load", "commit", "get", "scan", "growth", "verify", "compact", "export", "memory", "diff", "sdk", "notify", "async", "queries"]

    static let usage = """
        usage: firn-bench [--quick] [--only NAME[,NAME]] [--repetitions N] [--dir PATH]
                          [--firn PATH] [--keep] [--output FILE]

          --quick          smaller sizes: the whole run takes under two minutes
          --only           run these workloads: \(workloads.joined(separator: ", "))
          --repetitions N  runs of each contender per workload (default 3; 7 for
                           verify, compact and export)
          --dir PATH       scratch directory (default: a new directory under $TMPDIR or
                           /tmp when that is a real disk, else under the working directory)
          --firn PATH      the firn CLI (default ../.build/release/firn, then .build/release/firn)
          --keep           keep the scratch directory
          --firn-only      profiling aid: run only Firn's side (nothing is appended)
          --output FILE    append JSON lines here (default bench-results.jsonl)
        """

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < args.count else { fail("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--quick": o.quick = true
            case "--only":
                let names = value().split(separator: ",").map { String($0).trimmingSpaces }
                for n in names where !workloads.contains(n) { fail("unknown workload \(n)") }
                o.only = Set(names)
            case "--repetitions":
                guard let n = Int(value()), n >= 1 else { fail("--repetitions needs a positive number") }
                o.repetitions = n
            case "--dir": o.dir = value()
            case "--firn": o.firn = value()
            case "--keep": o.keep = true
            case "--firn-only": o.firnOnly = true
            case "--output": o.output = value()
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown option \(args[i])")
            }
            i += 1
        }
        return o
    }

    func wants(_ name: String) -> Bool { only?.contains(name) ?? true }

    var reps: Int { repetitions ?? 3 }

    // MARK: sizes

    /// Records of the load / get / scan / verify / compact / export data set.
    var records: Int { quick ? 100_000 : 1_000_000 }
    var commits: Int { quick ? 200 : 2_000 }
    var growthRecords: Int { quick ? 100_000 : 100_000 }
    var growthCommits: Int { quick ? 1_000 : 10_000 }
    var growthOverwrites: Int { 100 }
    /// Objects of the SDK rows (create, get, iterate, frozen, peak RSS).
    var sdkObjects: Int { quick ? 100_000 : 1_000_000 }
    /// The file the memory workload runs on.
    var memoryFileBytes: UInt64 { quick ? 256 << 20 : (2 << 30) + (64 << 20) }
}

func fail(_ message: String) -> Never {
    fputs("firn-bench: \(message)\n", stderr)
    exit(64)
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
