import Firn
import FirnCore
import Foundation
import Testing

/// `invalidate()`: releases the instance's read pin; its objects are
/// invalidated; the next use pins the latest version again.
@Suite struct InvalidateTests {
    static func readPins(_ db: Database) -> [PinRecord] {
        (db.store.pins()).filter { $0.kind == .read && $0.pid == getpid() }
    }

    @Test func releasesTheReadPinAndTheNextUsePinsTheLatestVersion() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let dogs = db.objects(Dog.self)
        #expect(Self.readPins(db).count == 1)
        db.invalidate()
        #expect(Self.readPins(db).isEmpty)
        try Steps.commitElsewhere(configuration, id: 1)
        #expect(dogs.count == 1)  // results stay usable, at the latest version
        #expect(Self.readPins(db).map(\.version) == [db.version])
    }

    @Test func objectsOfTheInstanceAreInvalidated() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = Dog()
        try db.write { try db.add(dog) }
        let frozen = try dog.freeze()
        db.invalidate()
        #expect(dog.isInvalidated)
        try db.beginWrite()
        #expect(throws: DatabaseError.invalidatedInstance(type: "Dog")) { try db.delete(dog) }
        db.cancelWrite()
        #expect(throws: DatabaseError.invalidatedInstance(type: "Dog")) { _ = try ThreadSafeReference(to: dog) }
        // Read again, it is there; frozen values keep their own pin.
        #expect(db.objects(Dog.self).first?.isInvalidated == false)
        #expect(!frozen.isInvalidated && frozen.id == 0)
    }

    @Test func cancelsAWriteInProgress() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.beginWrite()
        try db.add(Dog())
        db.invalidate()
        #expect(!db.isInWriteTransaction)
        #expect(db.objects(Dog.self).isEmpty)
    }

    @Test func readingAnObjectOfAnInvalidatedInstanceStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            let dog = Dog()
            try? db.write { try db.add(dog) }
            db.invalidate()
            _ = dog.name
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Dog was read through a Database instance that invalidate() released since"), "\(text)")
    }

    @Test func usingAListOfAnInvalidatedInstancesObjectStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            let person = Person()
            try? db.write { try db.add(person) }
            db.invalidate()
            _ = person.dogs.count
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Person was read through a Database instance that invalidate() released since; read it again (using dogs)"), "\(text)")
    }
}
