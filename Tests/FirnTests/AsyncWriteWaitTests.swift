@testable import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// `waitForAsyncWrites()` (and `close()`, `invalidate()`): the caller waits
/// for every request, so the syncs that fall due while it waits run on the
/// instance's own thread, not on the worker (docs/SDK.md, "Asynchronous
/// writes"). The rules stay those of any other pump: `commitAsyncWrite`
/// returns before its commit is durable, an ungrouped commit is durable
/// before the next block runs, a run of grouped ones shares one sync.
@Suite struct AsyncWriteWaitTests {
    @Test func whileTheInstanceWaitsItsSyncsRunThereAndTheOrderAndGroupingRulesHold() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let (events, runHere, stored) = try onNewThread { () throws -> ([String], Int, Int) in
            let db = try Database(configuration: configuration)
            let events = Box<[String]>([])
            @Sendable func durable() -> Bool {
                ((try? db.store.durableVersion) ?? 0) == ((try? db.store.currentVersion) ?? 1)
            }
            for i in 1...6 {
                let grouped = i > 3
                db.beginAsyncWrite {
                    if i > 1 { events.update { $0.append("\(i) starts \(durable() ? "durable" : "pending")") } }
                    try? db.add(Dog(i))
                    db.commitAsyncWrite(allowGrouping: grouped) { error in
                        events.update { $0.append("\(i) completes \(error == nil && durable() ? "durable" : "not durable")") }
                    }
                    events.update { $0.append("\(i) committed \(durable() ? "durable" : "pending")") }
                }
            }
            db.waitForAsyncWrites()
            #expect(durable())
            return (events.value, db.core.asyncWrites.syncsRunHere, db.objects(Dog.self).count)
        }
        #expect(stored == 6)
        // Ungrouped 1–3: each synced before the next block; grouped 4–6:
        // one sync at the end of the run. Never durable when commit returns.
        #expect(events == [
            "1 committed pending", "1 completes durable",
            "2 starts durable", "2 committed pending", "2 completes durable",
            "3 starts durable", "3 committed pending", "3 completes durable",
            "4 starts durable", "4 committed pending",
            "5 starts pending", "5 committed pending",
            "6 starts pending", "6 committed pending",
            "4 completes durable", "5 completes durable", "6 completes durable",
        ])
        // Three ungrouped commits and one run of grouped ones: four syncs,
        // each on the waiting thread.
        #expect(runHere == 4)
    }

    /// A queue-bound instance that does not wait: its syncs go to the
    /// worker, and the queue stays free meanwhile.
    @Test func aQueueBoundInstanceThatDoesNotWaitSyncsOnTheWorker() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-async-wait-test")
        let done = DispatchSemaphore(value: 0)
        let instance = Box<Database?>(nil)
        try onQueue(queue) {
            let db = try Database(configuration: configuration, queue: queue)
            instance.value = db
            for i in 1...3 {
                db.writeAsync({ try db.add(Dog(i)) }, onComplete: { _ in if i == 3 { done.signal() } })
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let runHere = try onQueue(queue) { () throws -> Int in
            let db = try #require(instance.value)
            #expect(db.objects(Dog.self).count == 3)
            let count = db.core.asyncWrites.syncsRunHere
            instance.value = nil
            return count
        }
        #expect(runHere == 0)
    }
}
