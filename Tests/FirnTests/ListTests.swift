import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// `List<T>` of objects and of scalars: lazy live reads, changes in a
/// write (typed errors outside one), one tree entry per element, frozen
/// lists from any thread, and the seeds' "thaw before you append".
@Suite struct ListTests {
    @Test func appendingObjectsInAWrite() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try db.write { try db.add(ali) }
        #expect(ali.dogs.isEmpty)
        try db.write {
            try ali.dogs.append(Dog(1, "Rex"))
            try ali.dogs.append(contentsOf: [Dog(2, "Fido"), Dog(3, "Lassie")])
        }
        #expect(ali.dogs.count == 3 && db.objects(Dog.self).count == 3)
        #expect(ali.dogs.map(\.name) == ["Rex", "Fido", "Lassie"])
        #expect(ali.dogs[1].name == "Fido" && ali.dogs.first?.id == 1 && ali.dogs.last?.id == 3)
        // The elements are the stored objects: a change shows through the list.
        try db.write { ali.dogs[0].age = 9 }
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1)?.age == 9)
    }

    @Test func addingAnObjectStoresItsUnmanagedList() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        let dogs = ali.dogs
        try dogs.append(Dog(1, "Rex"))  // unmanaged: no write needed
        try ali.nicknames.append(contentsOf: ["Al", "A."])
        try db.write { try db.add(ali) }
        #expect(db.objects(Dog.self).count == 1)
        #expect(ali.dogs.map(\.name) == ["Rex"] && ali.nicknames.map { $0 } == ["Al", "A."])
        // The list instance the unmanaged object held became the stored list.
        try db.write { try dogs.append(Dog(2)) }
        #expect(ali.dogs.count == 2)
    }

    @Test func everyScalarTypeAndOptionalsRoundTrip() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Bag.self, LogEntry.self]))
        let bag = Bag()
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 99.5)
        try bag.bools.append(contentsOf: [true, false])
        try bag.ints.append(contentsOf: [.min, 0, .max])
        try bag.int8s.append(-8)
        try bag.int16s.append(-16)
        try bag.int32s.append(.max)
        try bag.int64s.append(.min)
        try bag.doubles.append(2.5)
        try bag.floats.append(-1.25)
        try bag.strings.append(contentsOf: ["", "héllo"])
        try bag.datas.append(Data([0, 1, 2]))
        try bag.dates.append(date)
        try bag.uuids.append(uuid)
        try bag.optionalInts.append(contentsOf: [1, nil, 3])
        try bag.optionalStrings.append(contentsOf: [nil, "x"])
        let entry = LogEntry()
        entry.message = "logged"
        try bag.logs.append(entry)
        try db.write { try db.add(bag) }
        let read = try #require(db.objects(Bag.self).first)
        #expect(Array(read.bools) == [true, false] && Array(read.ints) == [.min, 0, .max])
        #expect(Array(read.int8s) == [-8] && Array(read.int16s) == [-16] && Array(read.int32s) == [.max] && Array(read.int64s) == [.min])
        #expect(Array(read.doubles) == [2.5] && Array(read.floats) == [-1.25] && Array(read.strings) == ["", "héllo"])
        #expect(Array(read.datas) == [Data([0, 1, 2])] && Array(read.dates) == [date] && Array(read.uuids) == [uuid])
        #expect(Array(read.optionalInts) == [1, nil, 3] && Array(read.optionalStrings) == [nil, "x"])
        #expect(read.logs.map(\.message) == ["logged"])
    }

    /// Every change, checked against an array doing the same.
    @Test func changesMatchAnArray() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Bag.self, LogEntry.self]))
        let bag = Bag()
        try db.write { try db.add(bag) }
        var model: [Int] = []
        var generator = SeededGenerator(seed: 9)
        try db.write {
            for step in 0..<400 {
                let count = model.count
                switch generator.next() % 6 {
                case 0, 1:
                    try bag.ints.append(step)
                    model.append(step)
                case 2:
                    let at = Int(generator.next() % UInt64(count + 1))
                    try bag.ints.insert(step, at: at)
                    model.insert(step, at: at)
                case 3 where count > 0:
                    let at = Int(generator.next() % UInt64(count))
                    try bag.ints.remove(at: at)
                    model.remove(at: at)
                case 4 where count > 0:
                    let from = Int(generator.next() % UInt64(count)), to = Int(generator.next() % UInt64(count))
                    try bag.ints.move(from: from, to: to)
                    model.insert(model.remove(at: from), at: to)
                case 5 where count > 0:
                    let at = Int(generator.next() % UInt64(count))
                    try bag.ints.replace(at: at, with: -step)
                    model[at] = -step
                default:
                    break
                }
                if step % 50 == 0 { #expect(Array(bag.ints) == model) }
            }
        }
        #expect(Array(bag.ints) == model && bag.ints.count == model.count)
        #expect(model.indices.allSatisfy { bag.ints[$0] == model[$0] })
        try db.write { try bag.ints.removeAll() }
        #expect(bag.ints.isEmpty)
    }

    @Test func changingOutsideAWriteThrowsAndReadingIsFine() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try ali.nicknames.append("Al")
        try db.write { try db.add(ali) }
        #expect(ali.nicknames.count == 1 && ali.nicknames[0] == "Al")
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "append to Person.nicknames")) {
            try ali.nicknames.append("x")
        }
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "remove from Person.nicknames")) {
            try ali.nicknames.remove(at: 0)
        }
        #expect(throws: DatabaseError.notInWriteTransaction(operation: "remove all of Person.nicknames")) {
            try ali.nicknames.removeAll()
        }
        #expect(ali.nicknames.count == 1)
    }

    @Test func aPositionOutOfRangeIsATypedError() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try db.write { try db.add(ali) }
        try db.beginWrite()
        defer { db.cancelWrite() }
        #expect(throws: DatabaseError.listIndexOutOfRange(type: "Person", property: "nicknames", index: 1, count: 0)) {
            try ali.nicknames.insert("x", at: 1)
        }
        #expect(throws: DatabaseError.listIndexOutOfRange(type: "Person", property: "nicknames", index: 0, count: 0)) {
            try ali.nicknames.remove(at: 0)
        }
        #expect(throws: DatabaseError.listIndexOutOfRange(type: "List<String>", property: "(unmanaged)", index: 3, count: 0)) {
            try List<String>().remove(at: 3)
        }
    }

    /// The seeds' example: a frozen person and a frozen dog must both be
    /// thawed before the dog is appended to the person's dogs.
    @Test func appendingAFrozenObjectThrowsAndSaysToThaw() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            try db.add(Person("Timmy"))
            try db.add(Dog(1, "Lassie"))
        }
        let frozenTimmy = try #require(db.objects(Person.self).first).freeze()
        let frozenLassie = try #require(db.objects(Dog.self).first).freeze()
        #expect(frozenTimmy.isFrozen && frozenLassie.isFrozen)
        let thawedTimmy = try #require(try frozenTimmy.thaw())
        try db.beginWrite()
        let error = DatabaseError.frozen(type: "Dog", operation: "append it to Person.dogs")
        #expect(throws: error) { try thawedTimmy.dogs.append(frozenLassie) }
        #expect(error.description == "Dog is frozen: cannot append it to Person.dogs (thaw() it first)")
        #expect(throws: DatabaseError.frozen(type: "Person.dogs", operation: "append to")) {
            try frozenTimmy.dogs.append(Dog(2))
        }
        db.cancelWrite()
        let thawedLassie = try #require(try frozenLassie.thaw())
        try db.write { try thawedTimmy.dogs.append(thawedLassie) }
        #expect(thawedTimmy.dogs.first?.name == "Lassie")
        #expect(frozenTimmy.dogs.isEmpty)  // the frozen list keeps its version
    }

    @Test func frozenListsAreReadableFromOtherThreads() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try db.write {
            try db.add(ali)
            for id in 0..<50 { try ali.dogs.append(Dog(id)) }
        }
        let frozen = try ali.dogs.freeze()
        #expect(frozen.isFrozen)
        try db.write { try ali.dogs.removeAll() }
        let sums = SumBox()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                sums.add(frozen.reduce(0) { $0 + $1.id } + frozen.count)
                group.leave()
            }.start()
        }
        group.wait()
        #expect(sums.values == [1275, 1275])
        #expect(try frozen.thaw()?.count == 0)
    }

    @Test func liveListsFollowTheirInstance() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let ali = Person("Ali")
        try db.write { try db.add(ali) }
        let nicknames = ali.nicknames
        let id = ali.id
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            guard let other = try? Database(configuration: configuration),
                  let person = try? other.object(ofType: Person.self, forPrimaryKey: id) else { return }
            try? other.write { try person.nicknames.append("from another thread") }
        }.start()
        done.wait()
        #expect(nicknames.isEmpty)  // the version this instance reads
        try db.refresh()
        #expect(Array(nicknames) == ["from another thread"])
    }

    @Test func assigningAListReplacesItsElements() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try ali.nicknames.append(contentsOf: ["a", "b", "c"])
        try db.write { try db.add(ali) }
        let replacement = List<String>()
        try replacement.append("z")
        try db.write { ali.nicknames = replacement }
        #expect(Array(ali.nicknames) == ["z"])
        // Replacing the object with `add(update:)` replaces its lists too.
        let again = Person("Ali 2")
        again.id = ali.id
        try again.nicknames.append(contentsOf: ["x", "y"])
        try db.write { try db.add(again, update: .modified) }
        #expect(Array(ali.nicknames) == ["x", "y"] && ali.name == "Ali 2")
    }

    /// One entry per element in the list tree; the owner's record does not
    /// change when elements are appended, and deleting the owner deletes them.
    @Test func elementsAreEntriesOfTheListTree() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try db.write {
            try db.add(ali)
            for i in 0..<500 { try ali.nicknames.append(String(repeating: "n", count: 40) + "\(i)") }
        }
        func trees() throws -> (list: UInt64, record: [UInt8]?) {
            let snapshot = try db.store.snapshot()
            defer { snapshot.close() }
            let list = try snapshot.tree("list.Person.nicknames")?.count ?? 0
            let record = try snapshot.tree("obj.Person")?.cursor()
            try record?.first()
            return (list, try record?.value)
        }
        let before = try trees()
        try db.write { try ali.nicknames.append("one more") }
        let after = try trees()
        #expect(before.list == 500 && after.list == 501)
        #expect(before.record == after.record && (after.record?.count ?? 0) < 64)
        try db.write { try db.delete(ali) }
        #expect(try trees().list == 0)
    }

    /// A deleted object leaves every list that held it (as often as it was there).
    @Test func aDeletedObjectLeavesTheListsThatHeldIt() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali"), bea = Person("Bea")
        let rex = Dog(1, "Rex"), fido = Dog(2, "Fido")
        try ali.dogs.append(contentsOf: [rex, fido, rex])
        try bea.dogs.append(contentsOf: [fido, rex])
        try db.write {
            try db.add(ali)
            try db.add(bea)
        }
        let frozen = try ali.dogs.freeze()
        try db.write { try db.delete(rex) }
        #expect(ali.dogs.map(\.name) == ["Fido"] && bea.dogs.map(\.name) == ["Fido"])
        #expect(frozen.map(\.name) == ["Rex", "Fido", "Rex"])  // its version still holds them
        try db.write { try db.delete(fido) }
        #expect(ali.dogs.isEmpty && bea.dogs.isEmpty)
    }

    @Test func aLiveListOnAnotherThreadStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            let ali = Person("Ali")
            try? db.write { try db.add(ali) }
            let nicknames = Unchecked(ali.nicknames)
            useOnAnotherThread { _ = nicknames.value.count }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Database accessed from incorrect thread"))
    }

    @Test func aListOfListsOrOfOptionalObjectsIsAnInvalidSchema() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.self) {
            _ = try Database(configuration: scratch.configuration([OptionalObjects.self, Dog.self, Person.self]))
        }
    }
}
