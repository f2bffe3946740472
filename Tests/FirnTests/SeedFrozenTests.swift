import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// The reference documents' frozen-object examples, adapted to our names
/// (`Database` for their realm, `try` where ours throw, `.first` where
/// they force-unwrap). Person and Dog are Models.swift's; the threading
/// examples are in SeedThreadingTests.
@Suite struct SeedFrozenTests {
    static func frozenPins(_ db: Database) -> [PinRecord] {
        (db.store.pins()).filter { $0.kind == .frozen && $0.pid == getpid() }
    }

    /// "Freezing creates an immutable view of a specific object, collection, or realm."
    @Test func freezeTheDatabaseResultsAndObjects() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write { try db.add(Person("Jane")) }
        // Get an immutable copy of the database that can be passed across threads
        let frozenDB = try db.freeze()
        let people = db.objects(Person.self)
        // You can freeze collections
        let frozenPeople = try people.freeze()
        // You can still read from frozen databases
        let frozenPeople2 = frozenDB.objects(Person.self)
        let person = try #require(people.first)
        // You can freeze objects
        let frozenPerson = try person.freeze()
        #expect(frozenDB.isFrozen && frozenPeople.isFrozen && frozenPeople2.isFrozen && frozenPerson.isFrozen)
        #expect(!db.isFrozen && !people.isFrozen && !person.isFrozen)
        #expect(frozenPeople2.first?.name == "Jane" && frozenPerson.name == "Jane")
        // All frozen values of one version share one pin.
        #expect(Self.frozenPins(db).count == 1)
    }

    /// "You can freely share the frozen object across threads."
    @Test func frozenValuesAreReadOnOtherThreads() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            for id in 0..<50 { try db.add(Dog(id, "dog \(id)")) }
        }
        let frozenDogs = try db.objects(Dog.self).freeze()
        let names = Box<[String]>([])
        let thread = DispatchGroup()
        DispatchQueue.global().async(group: thread) {
            names.value = frozenDogs.map(\.name)
        }
        thread.wait()
        #expect(names.value.count == 50 && names.value.first == "dog 0")
    }

    /// "When working with frozen objects, an attempt to ... throws": a write
    /// on a frozen database, adding through it, appending to a frozen list.
    @Test func writingThroughFrozenValuesThrows() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let jane = Person("Jane")
        try db.write { try db.add(jane) }
        let frozenDB = try db.freeze()
        #expect(throws: DatabaseError.frozen(type: "Database", operation: "beginWrite")) { try frozenDB.write {} }
        #expect(throws: DatabaseError.self) { try frozenDB.add(Dog(1, "Rex")) }
        let frozenJane = try jane.freeze()
        try db.write {
            #expect(throws: DatabaseError.self) { try frozenJane.dogs.append(Dog(2, "Fido")) }
        }
    }

    /// "To modify a frozen object, you must thaw the object."
    @Test func thawAFrozenObjectToModifyIt() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write { try db.add(Person("John")) }
        let frozenDB = try db.freeze()
        // Read from a frozen database
        let frozenPeople = frozenDB.objects(Person.self)
        // The collection that we pull from the frozen database is also frozen
        #expect(frozenPeople.isFrozen)
        // Get an individual person from the collection
        let frozenPerson = try #require(frozenPeople.first)
        // To modify the person, you must first thaw it
        let thawedPerson = try #require(try frozenPerson.thaw())
        // Check to make sure this person is valid. An object is invalidated
        // when it is deleted from its managing database.
        #expect(thawedPerson.isInvalidated == false)
        // Thawing the database too gives this thread's live instance
        let thawedDB = try frozenDB.thaw()
        #expect(thawedDB.isFrozen == false)
        try thawedDB.write { thawedPerson.name = "John Michael Kane" }
        #expect(db.objects(Person.self).first?.name == "John Michael Kane")
        #expect(frozenPerson.name == "John")
        // Thawing an object deleted since gives nil.
        try db.write { try db.delete(thawedPerson) }
        #expect(try frozenPerson.thaw() == nil)
    }

    /// "When you append to a frozen collection, you must thaw both the
    /// collection and the object that you want to append."
    @Test func thawBothTheListOwnerAndTheObjectBeforeAppending() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            try db.add(Person("Timmy"))
            try db.add(Dog(1, "Lassie"))
        }
        let frozenDB = try db.freeze()
        // Get a copy of frozen objects. Here, we're getting them from a frozen
        // database, but you might also be passing them across threads.
        let frozenTimmy = try frozenDB.objects(Person.self).where { $0.name == "Timmy" }
        let frozenLassie = try frozenDB.objects(Dog.self).where { $0.name == "Lassie" }
        // Confirm the objects are frozen.
        #expect(frozenTimmy.isFrozen == true)
        #expect(frozenLassie.isFrozen == true)
        // Thaw the frozen objects. You must thaw both the object you want to
        // append and the collection you want to append it to.
        let thawedTimmy = try frozenTimmy.thaw().first
        let thawedLassie = try #require(try frozenLassie.thaw().first)
        // Thawing only the person is not enough: the error says to thaw the dog.
        let frozenDog = try #require(frozenLassie.first)
        try db.write {
            #expect(throws: DatabaseError.self) { try thawedTimmy?.dogs.append(frozenDog) }
        }
        try db.write { try thawedTimmy?.dogs.append(thawedLassie) }
        #expect(thawedTimmy?.dogs.first?.name == "Lassie")
    }

    /// "The realm will not see changes that happened on another thread until
    /// the next refresh" — with autorefresh off, as on a thread without a run loop.
    @Test func refreshToSeeAnotherThreadsCommit() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        db.autorefresh = false
        #expect(db.objects(Dog.self).isEmpty)
        let other = DispatchGroup()
        DispatchQueue.global().async(group: other) {
            guard let db = try? Database(configuration: configuration) else { return }
            try? db.write { try db.add(Dog(7, "Rex")) }
        }
        other.wait()
        #expect(db.objects(Dog.self).isEmpty)
        if !db.autorefresh {
            // Manually refresh
            try db.refresh()
        }
        #expect(db.objects(Dog.self).first?.name == "Rex")
    }

    /// "Caching too many frozen objects can have a negative impact on the
    /// file size": the cache pins its version, counts its objects, and the
    /// pin goes with the last of them.
    @Test func cachedFrozenObjectsPinTheirVersionUntilDropped() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            for id in 0..<40 { try db.add(Dog(id, "dog \(id)")) }
        }
        var cache = Array(try db.objects(Dog.self).freeze())
        let cachedVersion = db.version
        for round in 0..<20 {
            try db.write {
                for dog in db.objects(Dog.self) { dog.age = round }
            }
        }
        let pin = try #require(Self.frozenPins(db).first)
        #expect(pin.version == cachedVersion && pin.frozenObjects == 40 && db.version == cachedVersion + 20)
        #expect(cache.allSatisfy { $0.age == 0 })
        cache.removeAll()
        #expect(Self.frozenPins(db).isEmpty)
    }
}
