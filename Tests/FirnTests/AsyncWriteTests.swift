import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// Asynchronous writes as an app makes them: an instance bound to a
/// serial queue (the reference documents' background queue), writes asked
/// for from its blocks, completions awaited with a semaphore. Thread-bound
/// instances run what is pending at their pump points (docs/SDK.md).
@Suite struct AsyncWriteTests {
    /// A queue-bound instance of a fresh database and a way to run code on
    /// its queue and wait for a signal from there.
    final class App: @unchecked Sendable {
        let scratch = Scratch()
        let queue = DispatchQueue(label: "firn-app")
        let configuration: Configuration
        let events = Box<[String]>([])
        private let signal = DispatchSemaphore(value: 0)
        private static let onQueueKey = DispatchSpecificKey<Bool>()

        init() {
            configuration = scratch.configuration()
            queue.setSpecific(key: Self.onQueueKey, value: true)
        }

        var isOnQueue: Bool { DispatchQueue.getSpecific(key: Self.onQueueKey) == true }

        /// The queue's instance; call on the queue.
        var db: Database {
            get throws { try Database(configuration: configuration, queue: queue) }
        }

        /// Runs `body` on the queue with its instance (and waits for it).
        func run<R: Sendable>(_ body: @escaping @Sendable (Database) throws -> R) throws -> R {
            try onQueue(queue) { try body(try self.db) }
        }

        func log(_ event: String) { events.update { $0.append(event) } }
        func done() { signal.signal() }
        /// Waits for `count` calls of `done()`; false after 10 s.
        func wait(_ count: Int = 1) -> Bool {
            (0..<count).allSatisfy { _ in signal.wait(timeout: .now() + 10) == .success }
        }

        /// Dogs by id, read by a fresh instance on a new thread.
        func storedDogIDs() throws -> [Int] {
            let configuration = configuration
            return try onNewThread { try Database(configuration: configuration).objects(Dog.self).map(\.id) }
        }
    }

    // MARK: where and when blocks and completions run

    @Test func writeAsyncReturnsAtOnceWhileAnotherWriterHoldsTheLock() throws {
        let app = App()
        _ = try app.run { _ in 0 }  // the file exists
        let holder = LockHolder(app.configuration)
        // Proved by order, not by a wall-clock bound: the lock is let go
        // only by the test below or, should writeAsync wait for it, by this
        // fallback much later — so a writeAsync that returns with the lock
        // not yet released did not wait for it, however slow the machine.
        holder.release(after: 30)
        let returnedBeforeRelease = try app.run { db -> Bool in
            db.writeAsync {
                app.log("block on queue \(app.isOnQueue), sees holder \(db.objects(Dog.self).contains { $0.id == 999 })")
                try db.add(Dog(1))
            } onComplete: { error in
                let durable = (try? db.store.durableVersion) ?? 0
                app.log("complete on queue \(app.isOnQueue), error \(error.map { "\($0)" } ?? "none"), durable \(durable >= db.version)")
                app.done()
            }
            return !holder.isReleased
        }
        #expect(returnedBeforeRelease, "writeAsync waited for the writer lock before returning")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(app.events.value.isEmpty)  // the block waits for the lock
        holder.release()
        #expect(app.wait())
        #expect(app.events.value == [
            "block on queue true, sees holder true",
            "complete on queue true, error none, durable true",
        ])
        #expect(try app.storedDogIDs() == [1, 999])
    }

    @Test func blocksRunInTheOrderAskedIncludingOnesQueuedFromABlock() throws {
        let app = App()
        try app.run { db in
            for i in 1...3 {
                db.writeAsync {
                    app.log("block \(i)")
                    try db.add(Dog(i))
                    if i == 1 {
                        db.writeAsync { app.log("nested") } onComplete: { _ in app.log("nested done"); app.done() }
                    }
                } onComplete: { _ in app.log("done \(i)") }
            }
        }
        #expect(app.wait())
        // An ungrouped commit is durable before the next request takes the
        // lock, so each completion comes before the next block.
        #expect(app.events.value == ["block 1", "done 1", "block 2", "done 2", "block 3", "done 3", "nested", "nested done"])
    }

    @Test func commitAsyncWriteReturnsAtOnceTheInstanceReadsTheNewVersionAndCompletionsComeInCommitOrder() throws {
        let app = App()
        try app.run { db in
            for i in 1...5 {
                db.beginAsyncWrite {
                    let before = db.version
                    try? db.add(Dog(i))
                    db.commitAsyncWrite(allowGrouping: i.isMultiple(of: 2)) { error in
                        app.log("complete \(i) \(error == nil)")
                        if i == 5 { app.done() }
                    }
                    // Already reading what it committed, before it is durable.
                    app.log("after commit \(i): version moved \(db.version == before + 1), sees \(db.objects(Dog.self).count)")
                }
            }
        }
        #expect(app.wait())
        let expected = (1...5).map { "after commit \($0): version moved true, sees \($0)" } + (1...5).map { "complete \($0) true" }
        // Completions follow their commits; a block may run before an earlier completion.
        #expect(app.events.value.filter { $0.hasPrefix("complete") } == expected.filter { $0.hasPrefix("complete") })
        #expect(app.events.value.filter { $0.hasPrefix("after") } == expected.filter { $0.hasPrefix("after") })
        for i in 1...5 {
            let commit = app.events.value.firstIndex(of: "after commit \(i): version moved true, sees \(i)")
            let complete = app.events.value.firstIndex(of: "complete \(i) true")
            #expect(commit != nil && complete != nil && commit! < complete!)
        }
    }

    /// Ungrouped: each commit is synced before the next request takes the
    /// lock. Grouped: later blocks of the run see the earlier commits not
    /// yet durable — the run shares the one sync at its end.
    @Test func groupedCommitsShareOneSyncAtTheEndOfTheRunUngroupedOnesAreSyncedEachBeforeTheNext() throws {
        for grouping in [false, true] {
            let app = App()
            try app.run { db in
                for i in 1...6 {
                    db.beginAsyncWrite {
                        let latest = (try? db.store.currentVersion) ?? 0
                        let durable = (try? db.store.durableVersion) ?? 0
                        if i > 1 { app.log(durable == latest ? "synced" : "pending") }
                        try? db.add(Dog(i))
                        db.commitAsyncWrite(allowGrouping: grouping) { _ in if i == 6 { app.done() } }
                    }
                }
            }
            #expect(app.wait())
            let seen = app.events.value
            #expect(seen == Array(repeating: grouping ? "pending" : "synced", count: 5), "grouping \(grouping)")
            let (latest, durable) = try app.run { db in (try db.store.currentVersion, try db.store.durableVersion) }
            #expect(durable == latest)
        }
    }

    // MARK: cancelling

    @Test func cancellingABeginIdBeforeItsBlockRanMeansTheBlockNeverRuns() throws {
        let app = App()
        _ = try app.run { _ in 0 }
        let holder = LockHolder(app.configuration)
        try app.run { db in
            db.writeAsync { app.log("first") }
            let second = db.writeAsync { app.log("second") } onComplete: { _ in app.log("second completed") }
            db.writeAsync { app.log("third") } onComplete: { _ in app.done() }
            try db.cancelAsyncWrite(second)
            // Over now: cancelling it again names nothing pending.
            #expect(throws: DatabaseError.unknownAsyncWrite(id: second)) { try db.cancelAsyncWrite(second) }
        }
        holder.release()
        #expect(app.wait())
        #expect(app.events.value == ["first", "third"])
    }

    @Test func cancellingTheBeginIdWhileTheBlockRunsRollsTheWriteBack() throws {
        let app = App()
        try app.run { db in
            let id = Box<AsyncTransactionId>(0)
            id.value = db.writeAsync {
                try db.add(Dog(1))
                try? db.cancelAsyncWrite(id.value)
                app.log("in write after cancel: \(db.isInWriteTransaction)")
            } onComplete: { _ in app.log("completed") }
            db.writeAsync { try db.add(Dog(2)) } onComplete: { _ in app.done() }
        }
        #expect(app.wait())
        #expect(app.events.value == ["in write after cancel: false"])
        #expect(try app.storedDogIDs() == [2])
    }

    @Test func cancellingACommitIdDropsOnlyItsCallback() throws {
        let app = App()
        try app.run { db in
            db.beginAsyncWrite {
                try? db.add(Dog(1))
                let id = db.commitAsyncWrite { _ in app.log("dropped callback ran") }
                do {
                    try db.cancelAsyncWrite(id)
                } catch {
                    app.log("cancel threw \(error)")
                }
            }
            db.writeAsync {} onComplete: { _ in app.done() }
        }
        #expect(app.wait())
        #expect(app.events.value.isEmpty)
        #expect(try app.storedDogIDs() == [1])
    }

    @Test func cancellingAnUnknownOrFinishedIdThrows() throws {
        let app = App()
        let finished = try app.run { db in
            db.writeAsync { try db.add(Dog(1)) } onComplete: { _ in app.done() }
        }
        #expect(app.wait())
        try app.run { db in
            #expect(throws: DatabaseError.unknownAsyncWrite(id: finished)) { try db.cancelAsyncWrite(finished) }
            #expect(throws: DatabaseError.unknownAsyncWrite(id: 4242)) { try db.cancelAsyncWrite(4242) }
        }
    }

    @Test func aBeginAsyncWriteBlockThatReturnsWithoutCommittingCancels() throws {
        let app = App()
        try app.run { db in
            db.beginAsyncWrite { try? db.add(Dog(1)) }
            db.writeAsync { app.log("next runs, dogs \(db.objects(Dog.self).count)") } onComplete: { _ in app.done() }
        }
        #expect(app.wait())
        #expect(app.events.value == ["next runs, dogs 0"])
        #expect(try app.storedDogIDs() == [])
    }

    @Test func aWriteAsyncBlockThatThrowsRollsBackAndReportsTheError() throws {
        let app = App()
        try app.run { db in
            try db.write { try db.add(Dog(1)) }
            db.writeAsync {
                try db.add(Dog(2))
                try db.add(Dog(1))  // a duplicate primary key
            } onComplete: { error in
                app.log("\(error.map { "\($0)" } ?? "no error")")
                app.done()
            }
        }
        #expect(app.wait())
        #expect(app.events.value.count == 1 && app.events.value[0].contains("already exists"))
        #expect(try app.storedDogIDs() == [1])
    }

    // MARK: synchronous writes meanwhile

    @Test func aSynchronousWriteOnTheSameInstanceFirstRunsWhatIsQueued() throws {
        let app = App()
        _ = try app.run { _ in 0 }
        let holder = LockHolder(app.configuration)
        try app.run { db in
            db.writeAsync { app.log("async 1"); try db.add(Dog(1)) }
            db.writeAsync { app.log("async 2"); try db.add(Dog(2)) }
            holder.release(after: 0.05)
            try db.write {
                app.log("sync sees \(db.objects(Dog.self).filter { $0.id < 3 }.count)")
                try db.add(Dog(3))
            }
        }
        #expect(app.events.value == ["async 1", "async 2", "sync sees 2"])
    }

    /// The other instance on another thread waits for the async block (run
    /// by the queue meanwhile); one on the same queue (another
    /// configuration of the same file) runs the queued block first, since
    /// the queue cannot run it while it waits.
    @Test func aSynchronousWriteOnAnotherInstanceNeverDeadlocksAgainstPendingAsyncBlocks() throws {
        let app = App()
        _ = try app.run { db in
            db.writeAsync { Thread.sleep(forTimeInterval: 0.02); try db.add(Dog(1)) }
        }
        let configuration = app.configuration
        try onNewThread { try Database(configuration: configuration).write { try Database(configuration: configuration).add(Dog(2)) } }
        // Another instance of the same file on the same queue.
        let other = Configuration(path: app.configuration.path, objectTypes: app.configuration.objectTypes,
                                  maximumNumberOfActiveVersions: 1000)
        try app.run { db in
            db.writeAsync { app.log("queued block"); try db.add(Dog(3)) }
            let sibling = try Database(configuration: other, queue: app.queue)
            try sibling.write {
                app.log("sibling write")
                try sibling.add(Dog(4))
            }
        }
        #expect(app.events.value == ["queued block", "sibling write"])
        #expect(try app.storedDogIDs() == [1, 2, 3, 4])
    }

    /// The queue's pending `writeAsync` must not hold the writer lock while
    /// the queue cannot run its block: here the queue waits for a
    /// synchronous write on another thread's instance (which cannot run the
    /// queue's requests). The worker has the lock by then; it gives it back
    /// when the queue does not take it, the write proceeds, and the async
    /// block runs once the queue is free. Before, the two waited for each
    /// other for good (no lock timeout) or until the lock timed out.
    @Test func aPendingAsyncWriteGivesTheLockBackWhileItsQueueWritesElsewhere() throws {
        let app = App()
        _ = try app.run { _ in 0 }
        let configuration = app.configuration
        let finished = DispatchSemaphore(value: 0)
        let outcome = Box<String?>(nil)
        app.queue.async {
            do {
                let db = try app.db
                db.writeAsync({ app.log("async block"); try db.add(Dog(1)) }, onComplete: { _ in
                    app.log("async complete")
                    app.done()
                })
                // Long enough for the worker to take the writer lock.
                Thread.sleep(forTimeInterval: 0.1)
                // The queue waits for a write on another thread.
                try onNewThread {
                    let other = try Database(configuration: configuration)
                    try other.write {
                        app.log("sync write")
                        try other.add(Dog(2))
                    }
                }
            } catch {
                outcome.value = "\(error)"
            }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 10) == .success, "the queue's synchronous write waited for its own pending async write")
        #expect(outcome.value == nil)
        #expect(app.wait())
        #expect(app.events.value == ["sync write", "async block", "async complete"])
        #expect(try app.storedDogIDs() == [1, 2])
    }

    // MARK: waiting for them

    @Test func isPerformingIsTrueFromTheFirstRequestUntilTheLastCompletion() throws {
        let app = App()
        try app.run { db in
            #expect(!db.isPerformingAsynchronousWriteOperations)
            db.writeAsync { try db.add(Dog(1)) } onComplete: { _ in
                app.log("first complete: \(db.isPerformingAsynchronousWriteOperations)")
            }
            #expect(db.isPerformingAsynchronousWriteOperations)
            db.writeAsync { try db.add(Dog(2)) } onComplete: { _ in
                app.queue.async {
                    app.log("after last: \(db.isPerformingAsynchronousWriteOperations)")
                    app.done()
                }
            }
        }
        #expect(app.wait())
        #expect(app.events.value == ["first complete: true", "after last: false"])
    }

    @Test func closeAndInvalidateWaitForPendingAsyncWrites() throws {
        for closing in [false, true] {
            let app = App()
            _ = try app.run { _ in 0 }
            let holder = LockHolder(app.configuration)
                try app.run { db in
                db.writeAsync { try db.add(Dog(1)) } onComplete: { _ in app.log("completed") }
                holder.release(after: 0.05)
                if closing { db.close() } else { db.invalidate() }
                app.log("returned, performing \(db.isPerformingAsynchronousWriteOperations)")
            }
            #expect(app.events.value == ["completed", "returned, performing false"], "closing \(closing)")
            #expect(try app.storedDogIDs() == [1, 999])
        }
    }

    @Test func aClosedInstanceIsReplacedAndRefusesUse() throws {
        let app = App()
        try app.run { db in
            try db.write { try db.add(Dog(1)) }
            db.close()
            #expect(throws: DatabaseError.closed) { try db.write {} }
            let reopened = try app.db
            #expect(reopened.objects(Dog.self).count == 1)
        }
    }

    // MARK: thread-bound instances

    /// A thread has no loop: its blocks and completions wait for the thread
    /// to process them, while the lock and the disk are waited for elsewhere.
    @Test func aThreadBoundInstanceRunsAsyncWritesWhenItsThreadProcessesThem() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let events = try onNewThread { () throws -> [String] in
            let db = try Database(configuration: configuration)
            let events = Box<[String]>([])
            db.writeAsync { events.update { $0.append("block") }; try db.add(Dog(1)) } onComplete: { _ in events.update { $0.append("complete") } }
            Thread.sleep(forTimeInterval: 0.05)
            events.update { $0.append("before processing") }
            // The lock has come meanwhile: the block runs, its completion
            // comes once the sync is done.
            let deadline = ContinuousClock.now + .seconds(10)
            while !events.value.contains("complete"), ContinuousClock.now < deadline {
                db.processAsyncWrites()
                Thread.sleep(forTimeInterval: 0.001)
            }
            db.writeAsync { events.update { $0.append("second") }; try db.add(Dog(2)) } onComplete: { _ in events.update { $0.append("second complete") } }
            db.waitForAsyncWrites()
            events.update { $0.append("waited, performing \(db.isPerformingAsynchronousWriteOperations)") }
            return events.value
        }
        #expect(events == ["before processing", "block", "complete", "second", "second complete", "waited, performing false"])
    }

    // MARK: misuse (exit tests: the child process stops)

    @Test func commitAsyncWriteOutsideAWriteStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            db.commitAsyncWrite()
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("commitAsyncWrite needs a write transaction"), "\(text)")
    }

    @Test func anAsyncWriteAskedForOffTheInstancesQueueStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let scratch = Scratch()
            let queue = DispatchQueue(label: "firn-bg")
            let configuration = scratch.configuration()
            guard let db = try? queue.sync(execute: { try Database(configuration: configuration, queue: queue) }) else { return }
            db.writeAsync {}
        }
    }
}
