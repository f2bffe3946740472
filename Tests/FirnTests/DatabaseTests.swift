import Firn
import FirnCore
import Foundation
import Testing

/// Writing, reading, updating and deleting objects; primary keys; the
/// instance cache; reopening the file.
@Suite struct DatabaseTests {
    @Test func personAndDogRoundTrip() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let person = Person()
        person.name = "Ali"
        person.city = "Lyon"
        let dog = Dog()
        dog.id = 7
        dog.name = "Rex"
        dog.age = 3
        dog.ownerID = person.id
        try db.write {
            try db.add(person)
            try db.add(dog)
        }
        let found = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 7))
        #expect(found.name == "Rex" && found.age == 3 && found.ownerID == person.id)
        let owner = try #require(try db.object(ofType: Person.self, forPrimaryKey: person.id))
        #expect(owner.name == "Ali" && owner.city == "Lyon")
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 8) == nil)
        #expect(db.objects(Dog.self).count == 1)
    }

    @Test func updatesAndDeletesInAWrite() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = Dog()
        dog.id = 1
        try db.write { try db.add(dog) }
        try db.write { dog.age += 1 }
        #expect(dog.age == 1)
        try db.write { dog.name = "Fido" }
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "Fido")
        try db.write { try db.delete(dog) }
        #expect(dog.isInvalidated)
        #expect(db.objects(Dog.self).count == 0)
    }

    @Test func oneWriteAddsChangesAndDeletes() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = Dog()
        dog.id = 2
        try db.write {
            try db.add(dog)
            dog.age += 1
            #expect(dog.age == 1)
            try db.delete(dog)
        }
        #expect(db.objects(Dog.self).count == 0)
    }

    @Test func cancelledWriteLeavesNothing() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.beginWrite()
        let dog = Dog()
        try db.add(dog)
        #expect(db.objects(Dog.self).count == 1)
        db.cancelWrite()
        #expect(db.objects(Dog.self).count == 0)
        #expect(dog.isInvalidated)
    }

    @Test func aThrowingBlockRollsBack() throws {
        struct Stop: Error {}
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(throws: Stop.self) {
            try db.write {
                try db.add(Dog())
                throw Stop()
            }
        }
        #expect(db.objects(Dog.self).count == 0)
        #expect(!db.isInWriteTransaction)
    }

    @Test func everyPropertyTypeRoundTrips() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let all = Everything()
        all.key = "k"
        all.bool = true
        all.int = .min
        all.int8 = -8
        all.int16 = -16
        all.int32 = .max
        all.int64 = -64
        all.double = 2.5
        all.float = -1.25
        all.string = "héllo"
        all.data = Data([1, 2, 3])
        all.date = Date(timeIntervalSinceReferenceDate: 12345.678)
        let uuid = all.uuid
        all.optionalInt = 5
        all.optionalString = "s"
        all.optionalDate = all.date
        all.optionalUUID = uuid
        try db.write { try db.add(all) }
        let read = try #require(try db.object(ofType: Everything.self, forPrimaryKey: "k"))
        #expect(read.bool && read.int == .min && read.int8 == -8 && read.int16 == -16 && read.int32 == .max)
        #expect(read.int64 == -64 && read.double == 2.5 && read.float == -1.25 && read.string == "héllo")
        #expect(read.data == Data([1, 2, 3]) && read.date == Date(timeIntervalSinceReferenceDate: 12345.678) && read.uuid == uuid)
        #expect(read.optionalBool == nil && read.optionalInt == 5 && read.optionalInt8 == nil && read.optionalString == "s")
        #expect(read.optionalDate == read.date && read.optionalUUID == uuid && read.optionalData == nil && read.optionalDouble == nil)
        try db.write { read.optionalInt = nil }
        #expect(read.optionalInt == nil)
    }

    @Test func typesWithoutPrimaryKeyGetGeneratedKeys() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            for i in 0..<5 {
                let entry = LogEntry()
                entry.message = "m\(i)"
                try db.add(entry)
            }
        }
        try db.write { try db.add(LogEntry()) }
        #expect(db.objects(LogEntry.self).map(\.message) == ["m0", "m1", "m2", "m3", "m4", ""])
    }

    @Test func theSameConfigurationOnOneThreadIsOneInstance() throws {
        let scratch = Scratch()
        let a = try Database(configuration: scratch.configuration())
        let b = try Database(configuration: scratch.configuration())
        try a.beginWrite()
        #expect(b.isInWriteTransaction)
        a.cancelWrite()
    }

    @Test func dataSurvivesReopening() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: scratch.configuration())
            let dog = Dog()
            dog.id = 9
            dog.name = "Kept"
            try db.write { try db.add(dog) }
        }
        let store = try Store.open(scratch.file)
        let snapshot = try store.snapshot()
        #expect(try snapshot.tree("obj.Dog")?.count == 1)
        #expect(try snapshot.tree("sys.schema")?.count == 4)
        snapshot.close()
        store.close()
        let db = try Database(configuration: scratch.configuration())
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 9)?.name == "Kept")
    }

    @Test func refreshSeesAnotherThreadsCommit() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let results = db.objects(Dog.self)
        #expect(results.count == 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            guard let other = try? Database(configuration: configuration) else { return }
            try? other.write {
                let dog = Dog()
                dog.id = 3
                try other.add(dog)
            }
        }.start()
        done.wait()
        #expect(results.count == 0)  // still the version this instance reads
        #expect(try db.refresh())
        #expect(results.count == 1)
    }
}
