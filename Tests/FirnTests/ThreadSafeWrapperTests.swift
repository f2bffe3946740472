import Firn
import FirnCore
import Foundation
import Testing

/// `@ThreadSafe`: keeps an object's identity only (no pin), Sendable, and
/// reads as the reading thread's live object, or nil once deleted.
@Suite struct ThreadSafeWrapperTests {
    /// How an app hands a `@ThreadSafe` property to another thread.
    struct Job: Sendable {
        @ThreadSafe var dog: Dog?
    }

    static func addDog(_ db: Database, id: Int) throws -> Dog {
        let dog = Dog()
        dog.id = id
        dog.name = "dog \(id)"
        try db.write { try db.add(dog) }
        return dog
    }

    @Test func readsAsTheReadingThreadsLiveObject() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let job = Job(dog: try Self.addDog(db, id: 1))
        let (name, frozen) = try onNewThread { () throws -> (String?, Bool?) in
            guard let dog = job.dog else { return (nil, nil) }
            // Live in this thread's instance: writable here.
            try Database(configuration: scratch.configuration()).write { dog.age = 9 }
            return (dog.name, dog.isFrozen)
        }
        #expect(name == "dog 1" && frozen == false)
        // The test thread's own live object, at the version its instance reads.
        #expect(job.dog?.age == 0)
        try db.refresh()
        #expect(job.dog?.age == 9)
    }

    @Test func holdsNoPin() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = try Self.addDog(db, id: 1)
        let before = db.store.pins().count
        let job = Job(dog: dog)
        let frozenJob = Job(dog: try dog.freeze())
        let withWrappers = db.store.pins().filter { $0.kind != .frozen }.count
        #expect(withWrappers == before)
        withExtendedLifetime((job, frozenJob)) {}
    }

    @Test func readsNilOnceTheObjectIsDeleted() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let dog = try Self.addDog(db, id: 1)
        let job = Job(dog: dog)
        try onNewThread {
            let other = try Database(configuration: configuration)
            guard let dog = job.dog else { throw Unreachable() }
            try other.write { try other.delete(dog) }
        }
        // This thread's instance reads the version from before the delete
        // until it refreshes; the wrapper reads through it.
        #expect(job.dog != nil)
        try db.refresh()
        #expect(job.dog == nil)
    }

    @Test func aLocalWrapperIsSentThroughItsProjection() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        @ThreadSafe var maybeDog: Dog? = nil
        #expect(maybeDog == nil)
        maybeDog = try Self.addDog(db, id: 3)
        let handle = $maybeDog
        let id = try onNewThread { handle.wrappedValue?.id }
        #expect(id == 3)
    }

    @Test func aWrapperMadeInAWriteSeesWhatTheWriteCommits() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let queue = DispatchQueue(label: "reader")
        let other = try onQueue(queue) { () throws -> Database in
            let other = try Database(configuration: configuration, queue: queue)
            other.autorefresh = false  // only the wrapper moves it
            return other
        }
        let job = try db.write { () throws -> Job in
            let dog = Dog()
            dog.id = 4
            try db.add(dog)
            return Job(dog: dog)
        }
        // The queue's instance is older than the dog: reading catches it up.
        let (id, caughtUp) = try onQueue(queue) { (job.dog?.id, other.version) }
        #expect(id == 4 && caughtUp == db.version)
    }
}
