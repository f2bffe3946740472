#if canImport(Glibc)
import Glibc
#endif

/// One side of a comparison: a name and a run that returns its figure
/// (records/s, MB/s, ×…) for one repetition.
struct Contender {
    let name: String
    let run: (_ repetition: Int) throws -> Double
}

/// Runs every contender `reps` times, alternating who goes first (Firn
/// first on even repetitions, last on odd ones) so that warm caches and
/// background load favour no one, and returns each one's median.
func alternate(_ workload: String, reps: Int, _ all: [Contender]) throws -> [String: Double] {
    let contenders = firnOnly ? all.filter { $0.name == "firn" } : all
    var samples: [String: [Double]] = [:]
    for r in 0..<reps {
        let order = r % 2 == 0 ? contenders : contenders.reversed()
        for c in order {
            let v = try c.run(r)
            samples[c.name, default: []].append(v)
            log("  \(workload) rep \(r + 1)/\(reps) \(c.name): \(formatNumber(v))")
        }
    }
    // A contender that did not run (--firn-only) reads as NaN, shown "n/a".
    var medians: [String: Double] = [:]
    for c in all { medians[c.name] = samples[c.name].map(median) ?? .nan }
    return medians
}

/// Set from --firn-only before any workload runs.
nonisolated(unsafe) var firnOnly = false

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Seconds taken by `body`.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func log(_ s: String) {
    fputs(s + "\n", stderr)
}

/// Keeps a computed value alive so the optimizer cannot drop the work behind it.
@inline(never)
func blackHole<T>(_ x: T) {
    withExtendedLifetime(x) {}
}
