import Firn
import Foundation
import Testing

/// Bad input is a typed error naming the type and property, never a crash.
@Suite struct ErrorTests {
    @Test func duplicatePrimaryKey() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let a = Dog()
        a.id = 1
        try db.write { try db.add(a) }
        let b = Dog()
        b.id = 1
        b.name = "second"
        try db.beginWrite()
        #expect(throws: DatabaseError.duplicatePrimaryKey(type: "Dog", property: "id", value: "1")) { try db.add(b) }
        try db.add(b, update: .modified)
        try db.commitWrite()
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "second")
    }

    @Test func primaryKeyOfTheWrongType() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(throws: DatabaseError.typeMismatch(type: "Dog", property: "id", expected: "Int", found: "String")) {
            _ = try db.object(ofType: Dog.self, forPrimaryKey: "7")
        }
    }

    @Test func missingPrimaryKey() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(throws: DatabaseError.missingPrimaryKey(type: "LogEntry", operation: "object(ofType:forPrimaryKey:)")) {
            _ = try db.object(ofType: LogEntry.self, forPrimaryKey: 1)
        }
    }

    @Test func writesOutsideAWriteTransaction() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "add(Dog)")) { try db.add(Dog()) }
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "commitWrite")) { try db.commitWrite() }
        try db.beginWrite()
        #expect(throws: DatabaseError.alreadyInWriteTransaction) { try db.beginWrite() }
        db.cancelWrite()
    }

    @Test func aTypeNotInTheConfiguration() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([LogEntry.self]))
        try db.beginWrite()
        #expect(throws: DatabaseError.typeNotInConfiguration(type: "Person")) { try db.add(Person()) }
        db.cancelWrite()
    }

    @Test func twoPrimaryKeysAreAnInvalidSchema() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.self) { _ = try Database(configuration: scratch.configuration([TwoKeys.self])) }
    }

    @Test func aChangedPropertyTypeNamesTheProperty() throws {
        let scratch = Scratch()
        do { _ = try Database(configuration: scratch.configuration([Dog.self, Person.self])) }
        let other = Configuration(path: scratch.file, objectTypes: [Renamed.Dog.self, Person.self])
        #expect(throws: DatabaseError.migrationRequired(type: "Dog", property: "age", change: "property age changed its type from Int to String",
                                                         storedVersion: 0, configuredVersion: 0, hasBlock: false)) {
            _ = try Database(configuration: other)
        }
    }

    @Test func changingAPrimaryKeyFailsTheCommit() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = Dog()
        try db.write { try db.add(dog) }
        try db.beginWrite()
        dog.id = 5
        #expect(throws: DatabaseError.primaryKeyChange(type: "Dog", property: "id")) { try db.commitWrite() }
        #expect(!db.isInWriteTransaction)
    }
}
