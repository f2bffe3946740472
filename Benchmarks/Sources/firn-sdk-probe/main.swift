// A profiling aid for the SDK's read path (not a benchmark: no peer, no
// targets): iterates 1M objects live, frozen on one thread and frozen on
// two threads, and prints objects/s and CPU ns per object (thread CPU
// time, which other processes' load does not inflate, unlike wall time).
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
let db = try Database(configuration: Configuration(path: path, objectTypes: [Item.self]))
if db.objects(Item.self).count != n {
    try db.write {
        for o in db.objects(Item.self) { try db.delete(o) }
        for i in 0..<n {
            let item = Item()
            item.id = i; item.name = "name \(i)"; item.value = i
            try db.add(item)
        }
    }
}
for mode in modes {
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
