import Firn
import FirnCore
import Foundation
import Testing

/// `Database.freeze()`: an instance at one version, readable from any
/// thread, sharing that version's one `frozen` pin; writes throw.
@Suite struct FrozenDatabaseTests {
    @Test func readsItsVersionFromAnyThread() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<3)
        let frozen = try db.freeze()
        try Steps.addDogs(db, 3..<5)
        let (count, name, isFrozen) = try onNewThread { () throws -> (Int, String?, Bool) in
            let dog = try frozen.object(ofType: Dog.self, forPrimaryKey: 2)
            return (frozen.objects(Dog.self).count, dog?.name, frozen.isFrozen && dog?.isFrozen == true)
        }
        #expect(count == 3 && name == "dog 2" && isFrozen)
        #expect(frozen.version < db.version && !frozen.isInWriteTransaction)
        #expect(try !frozen.refresh())
    }

    @Test func sharesTheVersionsFrozenPin() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<2)
        let frozen = try db.freeze()
        let dog = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 1)).freeze()
        let fromFrozen = try #require(try frozen.object(ofType: Dog.self, forPrimaryKey: 0))
        let pins = Steps.frozenPins(db)
        #expect(pins.count == 1 && pins.first?.version == frozen.version && pins.first?.frozenObjects == 2)
        withExtendedLifetime((dog, fromFrozen)) {}
    }

    @Test func writingThroughItThrows() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let frozen = try db.freeze()
        #expect(throws: DatabaseError.frozen(type: "Database", operation: "beginWrite")) { try frozen.write { } }
        #expect(throws: DatabaseError.frozen(type: "Database", operation: "add objects")) { try frozen.add(Dog()) }
        #expect(throws: DatabaseError.frozen(type: "Database", operation: "commitWrite")) { try frozen.commitWrite() }
        #expect(DatabaseError.frozen(type: "Database", operation: "beginWrite").description
            == "Database is frozen: cannot beginWrite (thaw() it first)")
    }

    @Test func thawGivesTheCallersLiveInstance() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let thawed = try db.freeze().thaw()
        #expect(!thawed.isFrozen)
        try thawed.beginWrite()
        #expect(db.isInWriteTransaction)  // the same instance
        thawed.cancelWrite()
    }

    @Test func aFrozenDatabaseOutlivesTheLiveInstance() throws {
        let scratch = Scratch()
        let frozen = try onNewThread { () throws -> Database in
            let db = try Database(configuration: scratch.configuration())
            try Steps.addDogs(db, 0..<2)
            return try db.freeze()
        }
        #expect(frozen.objects(Dog.self).map(\.id) == [0, 1])
    }
}
