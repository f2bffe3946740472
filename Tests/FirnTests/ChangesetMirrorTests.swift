import Dispatch
import Foundation
import Testing
@testable import Firn

/// Every results delivery, applied to a mirror of the previous delivery as
/// a table view applies it (deletions at old indices, then insertions at new
/// ones; modifications name old rows of objects still there), must give exactly the results the
/// callback sees: across grouped and ungrouped async writes, another
/// thread's commits and refresh-driven deliveries.
@Suite struct ChangesetMirrorTests {
    /// Keeps the mirror on the observer's binding and records mismatches.
    final class Mirror: @unchecked Sendable {
        private let lock = NSLock()
        private var rows: [Int] = []
        private(set) var problems: [String] = []
        private(set) var deliveries = 0
        private(set) var lastCount = -1
        private(set) var modified = 0

        func apply(_ change: ResultsChange<Dog>) {
            lock.lock()
            defer { lock.unlock() }
            switch change {
            case let .initial(results):
                rows = results.map(\.id)
            case let .update(results, deletions, insertions, modifications):
                let now = results.map(\.id)
                var next = rows
                for index in deletions.sorted(by: >) {
                    guard index < next.count else { problems.append("deletion \(index) past \(next.count) rows"); return }
                    next.remove(at: index)
                }
                for index in insertions.sorted() {
                    guard index <= next.count, index < now.count else {
                        problems.append("insertion \(index) into \(next.count) rows (results has \(now.count))")
                        return
                    }
                    next.insert(now[index], at: index)
                }
                // Rows as they were (Realm's contract, UIKit's reloads),
                // of objects the results still hold.
                for index in modifications {
                    guard index < rows.count else { problems.append("modification \(index) past \(rows.count) old rows"); continue }
                    if !now.contains(rows[index]) { problems.append("modification \(index): \(rows[index]) is gone") }
                }
                modified += modifications.count
                if next != now {
                    problems.append("from \(rows) with -\(deletions) +\(insertions): \(next), results \(now)")
                }
                rows = now
            case let .error(error):
                problems.append("error \(error)")
            }
            deliveries += 1
            lastCount = rows.count
        }

        var modifiedCount: Int { lock.withLock { modified } }

        var state: (deliveries: Int, count: Int, problems: [String]) {
            lock.lock()
            defer { lock.unlock() }
            return (deliveries, lastCount, problems)
        }

        func wait(forCount count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if state.count == count { return true }
                usleep(2_000)
            }
            return false
        }
    }

    /// Results observed on a queue while `writes` run in one queue block.
    static func observe(sorted: Bool, _ writes: @escaping @Sendable (Database, Int) -> Void) throws -> Mirror {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "mirror")
        let mirror = Mirror()
        let token = try onQueue(queue) {
            let db = try Database(configuration: configuration, queue: queue)
            let results = sorted ? try db.objects(Dog.self).sorted(byKeyPath: "id", ascending: false) : db.objects(Dog.self)
            return try results.observe { mirror.apply($0) }
        }
        defer { token.invalidate() }
        for round in 0..<3 {
            queue.async {
                guard let db = try? Database(configuration: configuration, queue: queue) else { return }
                writes(db, round)
            }
        }
        // Another thread commits too.
        try onNewThread {
            let other = try Database(configuration: configuration)
            try other.write { try other.add(Dog(100)) }
        }
        #expect(mirror.wait(forCount: 3 * 5 + 1), "\(mirror.state)")
        _ = scratch
        return mirror
    }

    @Test(arguments: [false, true])
    func groupedAsyncWritesDeliverChangesetsThatAddUp(sorted: Bool) throws {
        let mirror = try Self.observe(sorted: sorted) { db, round in
            for i in 0..<5 {
                db.beginAsyncWrite {
                    try? db.add(Dog(round * 10 + i))
                    db.commitAsyncWrite(allowGrouping: true)
                }
            }
        }
        #expect(mirror.state.problems == [])
    }

    @Test(arguments: [false, true])
    func ungroupedAndSynchronousWritesDeliverChangesetsThatAddUp(sorted: Bool) throws {
        let mirror = try Self.observe(sorted: sorted) { db, round in
            for i in 0..<4 {
                db.writeAsync { try db.add(Dog(round * 10 + i)) }
            }
            // A modification of a row an earlier round added.
            db.writeAsync { try db.object(ofType: Dog.self, forPrimaryKey: max(0, round - 1) * 10 + 1)?.name = "round \(round)" }
            try? db.write { try db.add(Dog(round * 10 + 4)) }
            _ = try? db.refresh()
        }
        #expect(mirror.state.problems == [])
        #expect(mirror.modifiedCount > 0)
    }
}
