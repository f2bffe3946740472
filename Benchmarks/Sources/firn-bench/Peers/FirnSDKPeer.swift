import Dispatch
import Firn
import BenchClock
import FirnCore

/// The Firn SDK as an application uses it: an `Object` subclass with
/// `@Persisted` properties, a thread-bound `Database` (the bench's thread),
/// `write { add }`, `object(ofType:forPrimaryKey:)`, live `Results`, and
/// frozen `Results` read from other threads. Durability is the SDK's
/// default (`.full`: one fdatasync per commit).
final class FirnSDKPeer: ObjectPeer {
    static let name = "firn"

    final class Item: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var value = 0
    }

    private var db: Database?

    init(path: String) throws {
        db = try Database(configuration: Configuration(path: path, objectTypes: [Item.self]))
    }

    private var open: Database {
        get throws {
            guard let db else { throw EngineError(description: "firn: closed") }
            return db
        }
    }

    func create(_ items: SDKItems) throws {
        let db = try open
        try db.write {
            for i in 0..<items.count {
                let item = Item()
                item.id = i
                item.name = items.names[i]
                item.value = items.values[i]
                try db.add(item)
            }
        }
    }

    func get(_ order: [Int]) throws -> (found: Int, sum: Int) {
        let db = try open
        var found = 0, sum = 0
        for id in order {
            if let item = try db.object(ofType: Item.self, forPrimaryKey: id) {
                found += 1
                sum &+= item.value
            }
        }
        return (found, sum)
    }

    func iterate() throws -> (count: Int, sum: Int) {
        Self.iterate(try open.objects(Item.self))
    }

    private static func iterate(_ results: Results<Item>) -> (count: Int, sum: Int) {
        var count = 0, sum = 0
        for item in results {
            count += 1
            sum &+= item.value
        }
        return (count, sum)
    }

    /// Iterates the frozen results of every object `passes` times on
    /// `threads` threads at once, each reading every object's `value`;
    /// returns the seconds from the start of the first to the end of the
    /// last, each thread's sum of one pass, and the threads' CPU time per
    /// object read (thread CPU clocks: whether threads slow each other down,
    /// which wall time on a shared 2-core machine cannot tell).
    func frozenIterate(threads: Int, passes: Int) throws -> (seconds: Double, sums: [Int], cpuPerObject: Double) {
        let frozen = try open.objects(Item.self).freeze()
        let sums = SumSlots(threads)
        let cpu = SumSlots(threads)
        let seconds = timed {
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                let start = threadCPUNanoseconds()
                var sum = 0
                for _ in 0..<passes { sum = Self.iterate(frozen).sum }
                cpu.set(t, Int(threadCPUNanoseconds() - start))
                sums.set(t, sum)
            }
        }
        let objects = Double(frozen.count * passes * threads)
        return (seconds, sums.values, Double(cpu.values.reduce(0, +)) / objects)
    }

    /// One slot per thread: each thread writes only its own (a buffer, not
    /// an array, whose copy-on-write check would make that a race).
    private final class SumSlots: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<Int>
        init(_ n: Int) { slots = .allocate(capacity: n); slots.initialize(repeating: 0) }
        deinit { slots.deallocate() }
        func set(_ i: Int, _ v: Int) { slots[i] = v }
        var values: [Int] { Array(slots) }
    }

    func close() { db = nil }
}

extension FirnSDKPeer {
    /// `count` one-object `writeAsync` requests from this (the instance's)
    /// thread, then `waitForAsyncWrites()`: the blocks run on this thread as
    /// it waits, the writer lock and the syncs are waited for by the
    /// instance's worker. Returns the whole time, the median time a
    /// `writeAsync` call kept the caller, and how many completions reported
    /// success. `grouped`: `beginAsyncWrite` + `commitAsyncWrite(allowGrouping: true)`.
    func writeAsync(_ items: SDKItems, count: Int, grouped: Bool) throws -> (seconds: Double, medianCallSeconds: Double, completed: Int) {
        let db = try open
        final class Tally: @unchecked Sendable { var ok = 0 }
        let tally = Tally()
        var calls: [Double] = []
        calls.reserveCapacity(count)
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<count {
            // The blocks are @Sendable: they capture the values and make the
            // (non-Sendable) object where it is added, on the instance's binding.
            let name = items.names[i], value = items.values[i]
            @Sendable func item() -> Item {
                let item = Item()
                item.id = i
                item.name = name
                item.value = value
                return item
            }
            let before = DispatchTime.now().uptimeNanoseconds
            if grouped {
                _ = db.beginAsyncWrite {
                    try? db.add(item())
                    _ = db.commitAsyncWrite(allowGrouping: true) { error in if error == nil { tally.ok += 1 } }
                }
            } else {
                db.writeAsync({ try db.add(item()) }, onComplete: { error in if error == nil { tally.ok += 1 } })
            }
            calls.append(Double(DispatchTime.now().uptimeNanoseconds - before) / 1e9)
        }
        db.waitForAsyncWrites()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        calls.sort()
        return (seconds, calls[calls.count / 2], tally.ok)
    }
}
