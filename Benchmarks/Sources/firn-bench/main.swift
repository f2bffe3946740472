#if canImport(Glibc)
import Glibc
#endif

// firn-bench: Firn against LMDB, SQLite, lz4 and GRDB, side by side in one run.
setvbuf(stdout, nil, _IOLBF, 0)
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == commitChildFlag {
    runCommitChild(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == sdkMemoryChildFlag {
    runSDKMemoryChild(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == asyncChildFlag {
    runAsyncChild(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == notifyChildFlag {
    runNotifyChild(Array(CommandLine.arguments.dropFirst(2)))
}
let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let scratch = Machine.scratch(options.dir)
let cli = FirnCLI.locate(options.firn, scratch: scratch)
firnOnly = options.firnOnly
let ctx = Context(options: options, scratch: scratch, cli: cli)

var header = [
    "firn-bench\(options.quick ? " --quick" : ""): \(options.reps) repetitions (verify, compact, export: \(options.repetitions ?? 7)), medians; \(options.records) records of 16-byte keys and 100-byte values",
    "machine: \(Machine.cores) cores, \(Machine.cpuModel), \(Machine.memory)",
    "scratch: \(scratch) on \(Machine.mount(of: scratch))",
]
if let cli {
    let subs = cli.available.sorted().joined(separator: ", ")
    header.append("firn CLI: \(cli.path) (\(subs.isEmpty ? "no maintenance commands yet" : subs))")
} else {
    header.append("firn CLI: not found (verify, compact, export and memory are skipped)")
}
for line in header { log(line) }

let workloads: [(String, (Context) throws -> Void)] = [
    ("load", runLoad), ("commit", runCommit), ("get", runGet), ("scan", runScan),
    ("growth", runPinnedGrowth), ("verify", runVerify), ("compact", runCompact),
    ("export", runExport), ("memory", runMemory), ("diff", runDiff), ("sdk", runSDK), ("notify", runNotify), ("async", runAsyncWrite),
    ("queries", runSDKQueries),
]
let started = ContinuousClock.now
var failed = false
for (name, run) in workloads where options.wants(name) {
    log("== \(name)")
    do {
        let t = try timed { try run(ctx) }
        log("   (\(formatDecimal(t, places: 1)) s)")
    } catch {
        failed = true
        ctx.report.skip(name, "failed: \(error)")
    }
}
let elapsed = ContinuousClock.now - started

print("")
for line in header { print(line) }
print("")
print(ctx.report.table())
for line in ctx.report.header { print(line) }
print("")
print("ratio > 1: Firn is better (throughput: Firn / peer; pinned growth and memory: peer / Firn).")
print("total time: \(elapsed.components.seconds) s; figures appended to \(options.output)")
if !options.firnOnly { ctx.report.appendJSON(to: options.output) }
if options.keep {
    log("scratch kept: \(scratch)")
} else {
    Machine.removeTree(scratch)
}
exit(failed ? 1 : 0)
