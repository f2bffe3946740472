import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// `Database(configuration:queue:)`: an instance bound to a serial queue,
/// usable from whichever thread runs the queue, cached per configuration
/// and queue, and stopping the program anywhere else.
@Suite struct QueueBindingTests {
    @Test func usableFromEveryThreadThatRunsTheQueue() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-bg")
        let made = DispatchSemaphore(value: 0)
        let box = Box<(Database, Int64)?>(nil)
        // Made in an async block (a worker thread)...
        queue.async {
            if let db = try? Database(configuration: configuration, queue: queue) {
                let dog = Dog()
                dog.id = 1
                try? db.write { try db.add(dog) }
                box.value = (db, currentKernelThreadID())
            }
            made.signal()
        }
        made.wait()
        let (db, maker) = try #require(box.value)
        // ...used in a sync block, which runs on the calling thread.
        let (count, user) = try onQueue(queue) { (db.objects(Dog.self).count, currentKernelThreadID()) }
        #expect(count == 1)
        print("made on thread \(maker), used on thread \(user)")
        let (sameInstance, otherQueue) = try onQueue(queue) { () throws -> (Bool, Bool) in
            let again = try Database(configuration: configuration, queue: queue)
            try db.beginWrite()
            defer { db.cancelWrite() }
            let elsewhere = DispatchQueue(label: "firn-other")
            let other = try onQueue(elsewhere) { try Database(configuration: configuration, queue: elsewhere).isInWriteTransaction }
            return (again.isInWriteTransaction, other)
        }
        #expect(sameInstance && !otherQueue)
    }

    @Test func thePinNamesTheQueue() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-bg")
        let db = try onQueue(queue) { try Database(configuration: configuration, queue: queue) }
        let pins = (db.store.pins()).filter { $0.kind == .read && $0.pid == getpid() }
        #expect(pins.map(\.label) == ["Database on queue \"firn-bg\""])
        #expect(pins.first?.threadID == 0)  // no thread in particular
        withExtendedLifetime(db) {}
    }

    @Test func objectsOfAQueueBoundInstanceAreUsableInItsLaterBlocks() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-bg")
        let dog = try onQueue(queue) { () throws -> Unchecked<Dog> in
            let db = try Database(configuration: configuration, queue: queue)
            let dog = Dog()
            dog.name = "Rex"
            try db.write { try db.add(dog) }
            return Unchecked(dog)
        }
        let name = Box<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.async {
            name.value = dog.value.name
            done.signal()
        }
        done.wait()
        #expect(name.value == "Rex")
    }

    // MARK: off the queue (exit tests: the child process stops)

    @Test func aQueueBoundInstanceUsedOffItsQueueStopsTheProgramNamingBothSides() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            let queue = DispatchQueue(label: "firn-bg")
            guard let db = try? onQueue(queue, { try Database(configuration: scratch.configuration(), queue: queue) }) else { return }
            _ = db.objects(Dog.self).count  // the test's thread, not the queue
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Database accessed from incorrect thread: bound to queue \"firn-bg\", used from thread "), "\(text)")
    }

    @Test func anObjectOfAQueueBoundInstanceUsedOffItsQueueStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            let queue = DispatchQueue(label: "firn-bg")
            let dog = try? onQueue(queue) { () throws -> Unchecked<Dog> in
                let db = try Database(configuration: scratch.configuration(), queue: queue)
                let dog = Dog()
                try db.write { try db.add(dog) }
                return Unchecked(dog)
            }
            // Another queue is not the instance's queue either.
            DispatchQueue(label: "firn-intruder").sync { _ = dog?.value.name }
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("bound to queue \"firn-bg\""), "\(text)")
    }

    @Test func resultsOfAQueueBoundInstanceUsedOffItsQueueStopTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            let queue = DispatchQueue(label: "firn-bg")
            guard let dogs = try? onQueue(queue, { try Database(configuration: scratch.configuration(), queue: queue).objects(Dog.self) })
            else { return }
            _ = dogs.isEmpty  // the test's thread, not the queue
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Database accessed from incorrect thread: bound to queue \"firn-bg\""), "\(text)")
    }

    @Test func makingAQueueBoundInstanceOffTheQueueStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            _ = try? Database(configuration: scratch.configuration(), queue: DispatchQueue(label: "firn-elsewhere"))
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Database accessed from incorrect thread: bound to queue \"firn-elsewhere\""), "\(text)")
    }

    @Test func aThreadBoundInstanceUsedOnAQueueNamesTheQueue() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            let queue = DispatchQueue(label: "firn-bg")
            // The queue is bound (it has an instance), so the message can name it.
            guard (try? onQueue(queue, { try Database(configuration: scratch.configuration(), queue: queue) })) != nil,
                  let db = try? Database(configuration: scratch.configuration()) else { return }
            useOnAnotherThread { queue.sync { _ = db.version } }
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("bound to thread ") && text.contains("on queue \"firn-bg\""), "\(text)")
    }
}
