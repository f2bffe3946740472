import Firn
import FirnCore
import Foundation
import Testing

/// `autorefresh` as docs/SDK.md defines it without a run loop: an instance
/// stays on its version while it is used (every read in between sees one
/// version), moves to the latest when it is asked for again, a queue-bound
/// one also between its queue's blocks after a commit, and every write
/// starts at the latest version whatever the setting.
@Suite struct AutorefreshTests {
    @Test func isOnByDefault() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(db.autorefresh)
        #expect(try !db.freeze().autorefresh)
    }

    @Test func usingAnInstanceDoesNotMoveIt() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let dogs = db.objects(Dog.self)
        let version = db.version
        try Steps.commitElsewhere(configuration, id: 1)
        #expect(dogs.count == 0 && db.objects(Dog.self).isEmpty)
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1) == nil)
        #expect(db.version == version)
    }

    @Test func anInstanceAskedForAgainMovesToTheLatestVersion() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let dogs = db.objects(Dog.self)
        try Steps.commitElsewhere(configuration, id: 1)
        let again = try Database(configuration: configuration)
        #expect(again.version == db.version)  // one instance
        #expect(dogs.count == 1)  // live results follow it
    }

    @Test func withAutorefreshOffItStaysUntilRefreshed() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        db.autorefresh = false
        let version = db.version
        try Steps.commitElsewhere(configuration, id: 1)
        let again = try Database(configuration: configuration)
        #expect(!again.autorefresh && again.version == version && again.objects(Dog.self).isEmpty)
        #expect(try db.refresh())
        #expect(db.objects(Dog.self).count == 1)
    }

    @Test func aWriteAlwaysStartsAtTheLatestVersion() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        db.autorefresh = false
        try Steps.commitElsewhere(configuration, id: 1)
        try db.beginWrite()
        #expect(db.objects(Dog.self).count == 1)
        db.cancelWrite()
        // It stays on the version the write started from.
        #expect(db.objects(Dog.self).count == 1)
    }

    @Test func aQueueBoundInstanceAskedForAgainMovesToo() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-bg")
        let db = try onQueue(queue) { try Database(configuration: configuration, queue: queue) }
        // All in one block, so no refresh between blocks can come first.
        let (stayed, moved) = try onQueue(queue) { () throws -> (Int, Int) in
            try Steps.commitElsewhere(configuration, id: 1)
            let stayed = db.objects(Dog.self).count
            return (stayed, try Database(configuration: configuration, queue: queue).objects(Dog.self).count)
        }
        #expect(stayed == 0 && moved == 1)
    }

    /// Runs `check` on `queue` until it holds, for at most 30 s (generous:
    /// it only bounds how long a failing test waits, and a loaded machine
    /// may deschedule the watcher or the queue for long).
    static func eventually(on queue: DispatchQueue, _ check: @Sendable () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if queue.sync(execute: check) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return queue.sync(execute: check)
    }

    @Test func aQueueBoundInstanceMovesBetweenItsBlocksNeverWithinOne() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-bg")
        let db = try onQueue(queue) { try Database(configuration: configuration, queue: queue) }
        let (start, end) = try onQueue(queue) { () throws -> (UInt64, UInt64) in
            let start = db.version
            try Steps.commitElsewhere(configuration, id: 1)
            Thread.sleep(forTimeInterval: 0.1)  // the watcher has reacted by now
            return (start, db.version)
        }
        #expect(start == end)
        #expect(Self.eventually(on: queue) { db.objects(Dog.self).count == 1 })
    }

    @Test func aQueueBoundInstanceWithAutorefreshOffStays() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        // Registered first, so its refresh block is queued before the other's.
        let offQueue = DispatchQueue(label: "firn-off")
        let off = try onQueue(offQueue) { () throws -> Database in
            let db = try Database(configuration: configuration, queue: offQueue)
            db.autorefresh = false
            return db
        }
        let onQueue_ = DispatchQueue(label: "firn-on")
        let on = try onQueue(onQueue_) { try Database(configuration: configuration, queue: onQueue_) }
        let version = try onQueue(offQueue) { off.version }
        try Steps.commitElsewhere(configuration, id: 1)
        #expect(Self.eventually(on: onQueue_) { on.objects(Dog.self).count == 1 })
        // The off instance's refresh block has run by now (queued first): it stayed.
        #expect(try onQueue(offQueue) { off.version } == version)
    }
}
