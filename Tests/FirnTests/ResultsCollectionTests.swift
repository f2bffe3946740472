import Firn
import Foundation
import Testing

/// Results as a random-access collection (`last`, `indices`, slicing,
/// `reversed()`), `delete(_:)` of results, lists and arrays, `deleteAll()`.
@Suite struct ResultsCollectionTests {
    static func ids(_ dogs: some Sequence<Dog>) -> [Int] { dogs.map(\.id) }

    @Test func indicesLastAndSlices() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try QueryTests.dogs(db)
        let all = db.objects(Dog.self)
        #expect(all.indices == 0..<6)
        #expect(all.last?.id == 6)
        #expect(all.first?.id == 1)
        #expect(Self.ids(all[2..<4]) == [3, 4])
        #expect(Self.ids(all.suffix(2)) == [5, 6])
        #expect(Self.ids(all.dropFirst(4)) == [5, 6])
        #expect(Self.ids(all.reversed()) == [6, 5, 4, 3, 2, 1])
        #expect(all[4].id == 5 && all[1].id == 2 && all[5].id == 6)  // back and forth
        let sorted = try all.sorted(by: \.age)
        #expect(sorted.last?.id == 6)
        #expect(Self.ids(sorted[1...2]) == [2, 4])
        #expect(sorted.firstIndex { $0.id == 1 } == 3)
        // Binary search over sorted results, as over an array.
        let ages = sorted.map(\.age)
        #expect(ages == ages.sorted())
        // Empty results.
        let none = try all.where { $0.age > 100 }
        #expect(none.last == nil && none.first == nil && none.indices.isEmpty && none.isEmpty)
        #expect(db.objects(LogEntry.self).last == nil)
    }

    @Test func indicesFollowTheVersion() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try QueryTests.dogs(db)
        let all = db.objects(Dog.self)
        let frozen = try all.freeze()
        #expect(all[3].id == 4)
        try db.write { try db.delete(try #require(try db.object(ofType: Dog.self, forPrimaryKey: 2))) }
        #expect(all[3].id == 5)
        #expect(all.last?.id == 6)
        #expect(all.count == 5 && all.indices == 0..<5)
        #expect(frozen[3].id == 4 && frozen.count == 6)
        let box = Unchecked(frozen)
        let seen = SumBox()
        useOnAnotherThread { seen.add(box.value.last?.id ?? -1); seen.add(box.value[1].id) }
        #expect(seen.values == [6, 2])
    }

    @Test func deleteResults() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try LinkQueryTests.people(db)
        let old = try db.objects(Dog.self).where { $0.age > 4 }  // Rex 5, Bo 7, Lassie 9
        let rex = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 1))
        try db.write { try db.delete(old) }
        #expect(old.isEmpty)
        #expect(Self.ids(db.objects(Dog.self)) == [2, 5])
        #expect(rex.isInvalidated)
        // The deleted dogs left the lists that held them.
        let people = db.objects(Person.self).sorted { $0.name < $1.name }
        #expect(people.map { Self.ids($0.dogs) } == [[2], [], [], [5]])
        // Deleting empty results, or again, deletes nothing.
        try db.write { try db.delete(old) }
        #expect(db.objects(Dog.self).count == 2)
    }

    @Test func deleteAListsObjectsAndAnArray() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try LinkQueryTests.people(db)
        let dave = try LinkQueryTests.person(db, "Dave")
        try db.write { try db.delete(dave.dogs) }
        #expect(dave.dogs.isEmpty)
        #expect(Self.ids(db.objects(Dog.self)) == [1, 2, 4])
        let mixed: [Object] = [try #require(try db.object(ofType: Dog.self, forPrimaryKey: 1)), dave]
        try db.write { try db.delete(mixed) }
        #expect(Self.ids(db.objects(Dog.self)) == [2, 4])
        #expect(db.objects(Person.self).count == 3)
    }

    @Test func deleteAll() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try LinkQueryTests.people(db)
        try db.write {
            let entry = LogEntry()
            entry.message = "kept until deleteAll"
            try db.add(entry)
        }
        let log = NotificationTests.Log<NotificationTests.Seen>()
        let token = try db.objects(Dog.self).observe { log.append(NotificationTests.seen($0)) }
        try db.write { try db.deleteAll() }
        #expect(db.objects(Dog.self).isEmpty && db.objects(Person.self).isEmpty && db.objects(LogEntry.self).isEmpty)
        #expect(log.entries.last == .update(deletions: [0, 1, 2, 3, 4], insertions: [], modifications: []))
        token.invalidate()
        // The file is still sound and takes new objects; generated keys are not given again.
        try db.write {
            let entry = LogEntry()
            entry.message = "after"
            try db.add(entry)
        }
        #expect(db.objects(LogEntry.self).count == 1)
        try db.write { try db.deleteAll() }  // nothing left: fine
    }

    @Test func deletingNeedsAWriteAndOwnLiveObjects() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try QueryTests.dogs(db)
        let all = db.objects(Dog.self)
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "delete(Dog)")) { try db.delete(all) }
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "deleteAll()")) { try db.deleteAll() }
        let frozen = try all.freeze()
        #expect(throws: DatabaseError.frozen(type: "Results<Dog>", operation: "delete them")) {
            try db.write { try db.delete(frozen) }
        }
        #expect(throws: DatabaseError.unmanagedObject(type: "Dog", operation: "delete it")) {
            try db.write { try db.delete([Dog()]) }
        }
        #expect(throws: DatabaseError.frozen(type: "Database", operation: "delete objects")) {
            try db.freeze().delete(all)
        }
        #expect(all.count == 6)
    }
}
