import Firn
import FirnCore
import Foundation
import Testing

/// `ThreadSafeReference`: a Sendable hand-over of a live object or results
/// to another thread, resolved exactly once, pinning its version (kind
/// `threadSafeReference`, labelled file:line) until resolved or dropped.
@Suite struct ThreadSafeReferenceTests {
    static func addDog(_ db: Database, id: Int, name: String) throws -> Dog {
        let dog = Dog()
        dog.id = id
        dog.name = name
        try db.write { try db.add(dog) }
        return dog
    }

    /// An instance of `scratch`'s file with dog 1, Rex, added.
    static func rex(_ scratch: Scratch) throws -> (Configuration, Database, Dog) {
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        return (configuration, db, try addDog(db, id: 1, name: "Rex"))
    }

    static func referencePins(_ db: Database) -> [PinRecord] {
        (db.store.pins()).filter { $0.kind == .threadSafeReference && $0.pid == getpid() }
    }

    @Test func resolvesToTheLiveObjectOfTheResolvingThread() throws {
        let scratch = Scratch()
        let (configuration, db, dog) = try Self.rex(scratch)
        let ref = try ThreadSafeReference(to: dog)
        let (name, frozen) = try onNewThread { () throws -> (String, Bool) in
            let other = try Database(configuration: configuration)
            guard let resolved = try other.resolve(ref) else { throw Unreachable() }
            try other.write { resolved.age = 4 }  // live in this thread's instance
            return (resolved.name, resolved.isFrozen)
        }
        #expect(name == "Rex" && !frozen)
        try db.refresh()
        #expect(dog.age == 4)
    }

    @Test func aSecondResolveThrowsNamingWhereTheReferenceWasMade() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = try Self.addDog(db, id: 1, name: "Rex")
        let line = #line + 1
        let ref = try ThreadSafeReference(to: dog)
        let copy = ref  // copies share the one resolution
        #expect(try db.resolve(ref)?.name == "Rex")
        let error = DatabaseError.referenceAlreadyResolved(type: "Dog", madeAt: "FirnTests/ThreadSafeReferenceTests.swift:\(line)")
        #expect(throws: error) { _ = try db.resolve(copy) }
        #expect(error.description.contains("ThreadSafeReferenceTests.swift:\(line) was already resolved"))
    }

    @Test func resolvesToNilWhenTheObjectWasDeletedMeanwhile() throws {
        let scratch = Scratch()
        let (configuration, db, dog) = try Self.rex(scratch)
        let ref = try ThreadSafeReference(to: dog)
        try db.write { try db.delete(dog) }
        let found = try onNewThread { try Database(configuration: configuration).resolve(ref) != nil }
        #expect(!found)
        #expect(Self.referencePins(db).isEmpty)
    }

    @Test func pinsItsVersionLabelledWithFileAndLineUntilResolved() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = try Self.addDog(db, id: 1, name: "Rex")
        #expect(Self.referencePins(db).isEmpty)
        let line = #line + 1
        let ref = try ThreadSafeReference(to: dog)
        let pins = Self.referencePins(db)
        #expect(pins.count == 1)
        #expect(pins.first?.label == "FirnTests/ThreadSafeReferenceTests.swift:\(line)")
        #expect(pins.first?.version == db.version)
        // It keeps its version pinned while the instance moves on.
        let pinned = db.version
        _ = try Self.addDog(db, id: 2, name: "Fido")
        #expect(db.version > pinned && Self.referencePins(db).first?.version == pinned)
        _ = try db.resolve(ref)
        #expect(Self.referencePins(db).isEmpty)
    }

    @Test func droppingAnUnresolvedReferenceReleasesItsPin() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = try Self.addDog(db, id: 1, name: "Rex")
        do {
            let ref = try ThreadSafeReference(to: dog)
            let copy = ref
            #expect(Self.referencePins(db).count == 1)
            withExtendedLifetime(copy) {}
        }
        #expect(Self.referencePins(db).isEmpty)
    }

    @Test func resolvingRefreshesAnInstanceOlderThanTheReference() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "resolver")
        // The resolving instance is opened first, so it reads an older
        // version (and stays there: no refresh between the queue's blocks).
        let other = try onQueue(queue) { () throws -> Database in
            let other = try Database(configuration: configuration, queue: queue)
            other.autorefresh = false
            return other
        }
        let db = try Database(configuration: configuration)
        let dog = try Self.addDog(db, id: 1, name: "Rex")
        let ref = try ThreadSafeReference(to: dog)
        let (before, after, name) = try onQueue(queue) { () throws -> (UInt64, UInt64, String?) in
            let before = other.version
            let resolved = try other.resolve(ref)
            return (before, other.version, resolved?.name)
        }
        #expect(before < db.version && after >= db.version && name == "Rex")
    }

    @Test func aResultsReferenceResolvesToLiveResults() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        _ = try Self.addDog(db, id: 1, name: "Rex")
        _ = try Self.addDog(db, id: 2, name: "Fido")
        let ref = try ThreadSafeReference(to: db.objects(Dog.self))
        let (names, frozen) = try onNewThread { () throws -> ([String], Bool) in
            let other = try Database(configuration: configuration)
            let dogs = try other.resolve(ref)
            return (dogs.map(\.name), dogs.isFrozen)
        }
        #expect(names == ["Rex", "Fido"] && !frozen)
    }

    @Test func aReferenceToAQueryResolvesToTheSameQuery() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        for (id, name, age) in [(1, "Rex", 5), (2, "Ace", 1), (3, "Bo", 7)] {
            let dog = Dog()
            dog.id = id
            dog.name = name
            dog.age = age
            try db.write { try db.add(dog) }
        }
        let ref = try ThreadSafeReference(to: try db.objects(Dog.self).where { $0.age > 3 }.sorted(by: \.name))
        let names = try onNewThread { try Database(configuration: configuration).resolve(ref).map(\.name) }
        #expect(names == ["Bo", "Rex"])
    }

    @Test func aReferenceToAFrozenObjectResolvesToTheLiveOne() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let frozen = try Self.addDog(db, id: 1, name: "Rex").freeze()
        let ref = try ThreadSafeReference(to: frozen)
        let live = try onNewThread { try Database(configuration: configuration).resolve(ref).map { !$0.isFrozen } }
        #expect(live == true)
    }

    @Test func badReferencesAreTypedErrors() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(throws: DatabaseError.unmanagedObject(type: "Dog", operation: "make a ThreadSafeReference to it")) {
            _ = try ThreadSafeReference(to: Dog())
        }
        let dog = try Self.addDog(db, id: 1, name: "Rex")
        let ref = try ThreadSafeReference(to: dog)
        // Another file refuses it without consuming it.
        let elsewhere = Scratch()
        let other = try Database(configuration: elsewhere.configuration())
        #expect(throws: DatabaseError.referenceFromAnotherFile(type: "Dog", referencePath: scratch.file, databasePath: elsewhere.file)) {
            _ = try other.resolve(ref)
        }
        // A frozen instance cannot resolve either.
        #expect(throws: DatabaseError.self) { _ = try db.freeze().resolve(ref) }
        #expect(try db.resolve(ref)?.name == "Rex")
        try db.write { try db.delete(dog) }
        #expect(throws: DatabaseError.invalidatedObject(type: "Dog")) { _ = try ThreadSafeReference(to: dog) }
    }

    @Test func aReferenceMadeInAWriteRefersToWhatTheWriteCommits() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let queue = DispatchQueue(label: "resolver")
        let other = try onQueue(queue) { () throws -> Database in
            let other = try Database(configuration: configuration, queue: queue)
            other.autorefresh = false
            return other
        }
        let ref = try db.write { () throws -> ThreadSafeReference<Dog> in
            let dog = Dog()
            dog.id = 5
            try db.add(dog)
            return try ThreadSafeReference(to: dog)
        }
        let (found, after) = try onQueue(queue) { (try other.resolve(ref) != nil, other.version) }
        #expect(found && after == db.version)
    }
}
