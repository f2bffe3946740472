// A profiling aid for the SDK's read path (not a benchmark: no peer, no
// targets): iterates 1M objects live, frozen on one thread and frozen on
// two threads, and prints objects/s and CPU ns per object (thread CPU
// time, which other processes' load does not inflate, unlike wall time).
// The modes `equality`, `range`, `sort`, `count` and `sum` run the Firn
// side of the `queries` rows once each on a file of their own (PATH.queries),
// so a profiler sees one row at a time.
import Dispatch
import Firn
import BenchClock
import FirnCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var value = 0
}

func threadCPU() -> Double { Double(threadCPUNanoseconds()) / 1e9 }
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

final class Slots: @unchecked Sendable {
    var cpu = [Double](repeating: 0, count: 8)
    var sum = [Int](repeating: 0, count: 8)
}

@inline(never) func iterate(_ results: Results<Item>) -> (Int, Int) {
    var count = 0, sum = 0
    for item in results { count += 1; sum &+= item.value }
    return (count, sum)
}

let args = CommandLine.arguments
let path = args.count > 1 ? args[1] : "/tmp/firn-sdk-probe.firn"
let n = 1_000_000
let modes = args.count > 2 ? args[2].split(separator: ",").map(String.init) : ["live", "frozen1", "frozen2"]
runQueryModes(path + ".queries", modes.filter { QueryProbe.modes.contains($0) })
let objectModes = modes.filter { !QueryProbe.modes.contains($0) }
let db = try Database(configuration: Configuration(path: path, objectTypes: [Item.self]))
if !objectModes.isEmpty, db.objects(Item.self).count != n {
    try db.write {
        for o in db.objects(Item.self) { try db.delete(o) }
        for i in 0..<n {
            let item = Item()
            item.id = i; item.name = "name \(i)"; item.value = i
            try db.add(item)
        }
    }
}
for mode in objectModes {
    let threads = mode == "frozen2" ? 2 : 1
    let results = mode == "live" ? db.objects(Item.self) : try db.objects(Item.self).freeze()
    let slots = Slots()
    let t0 = now()
    if mode == "live" {
        let c0 = threadCPU(); _ = iterate(results); slots.cpu[0] = threadCPU() - c0
    } else {
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let c0 = threadCPU(); let (_, s) = iterate(results); slots.cpu[t] = threadCPU() - c0; slots.sum[t] = s
        }
    }
    let wall = now() - t0
    let cpu = slots.cpu.prefix(threads).reduce(0, +)
    print("\(mode): \(Int(Double(n * threads) / wall)) objects/s wall, \(String(format: "%.0f", cpu / Double(n * threads) * 1e9)) CPU ns/object")
}

/// The `queries` rows' object shape and queries (Benchmarks' FirnSDKQueryPeer).
final class Entry: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var group = 0
    @Persisted var value = 0
}

enum QueryProbe {
    static let modes: Set<String> = ["equality", "range", "sort", "count", "sum"]

    @inline(never) static func run(_ mode: String, _ db: Database) throws -> Int {
        let entries = db.objects(Entry.self)
        var count = 0, sum = 0
        switch mode {
        case "equality":
            for g in 0..<20 {
                let group = g * 37 % 1000
                for entry in try entries.where({ $0.group == group }) { count += 1; sum &+= entry.value }
            }
        case "range":
            for i in 0..<5 {
                let range = (i * 150_000)...(i * 150_000 + 9_999)
                for entry in try entries.where({ range.contains($0.value) }) { count += 1; sum &+= entry.value }
            }
        case "sort":
            let sorted = try entries.sorted(by: [SortDescriptor(keyPath: \Entry.group), SortDescriptor(keyPath: \Entry.value, ascending: false)])
            for entry in sorted { count += 1; sum &+= count &* entry.value }
        case "count": count = try entries.where { $0.value < 500_000 }.count
        case "sum": sum = try entries.sum(of: \.value)
        default: break
        }
        return count &+ sum
    }
}

func runQueryModes(_ path: String, _ modes: [String]) {
    guard !modes.isEmpty else { return }
    do {
        let db = try Database(configuration: Configuration(path: path, objectTypes: [Entry.self]))
        if db.objects(Entry.self).count != n {
            var state: UInt64 = 0x5D_0002
            try db.write {
                for o in db.objects(Entry.self) { try db.delete(o) }
                for i in 0..<n {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let entry = Entry()
                    entry.id = i; entry.name = "item \(i)"; entry.group = i % 1000; entry.value = Int((state >> 33) % 1_000_000)
                    try db.add(entry)
                }
            }
        }
        for mode in modes {
            let t0 = now(), c0 = threadCPU()
            let result = try QueryProbe.run(mode, db)
            let cpu = threadCPU() - c0, wall = now() - t0
            print("\(mode): \(String(format: "%.1f", wall * 1000)) ms wall, \(String(format: "%.1f", cpu * 1000)) ms CPU (result \(result))")
        }
    } catch {
        print("queries: \(error)")
        exit(1)
    }
}
