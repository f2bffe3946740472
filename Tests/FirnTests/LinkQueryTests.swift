import Firn
import Foundation
import Testing

/// Queries through links (`$0.owner.city == "Oslo"`) and lists
/// (`$0.dogs.age > 5`: some dog; `allSatisfy`: every dog), with null links,
/// deleted targets, empty lists, live and frozen results, and notifications
/// when only the linked objects change.
@Suite struct LinkQueryTests {
    /// Alice (Oslo) owns Rex 5 and Fido 2 (her list), Bob (Bergen) lists
    /// Lassie 9, Carol (no city) lists nothing, Dave (Oslo) lists Ben 1 and
    /// Bo 7. Each dog's `owner`: Rex → Alice, Fido → Bob, Bo → none,
    /// Lassie → Carol, Ben → Dave. Alice's best friend is Bob.
    static func people(_ db: Database) throws {
        func dog(_ id: Int, _ name: String, _ age: Int) -> Dog {
            let dog = Dog()
            dog.id = id
            dog.name = name
            dog.age = age
            return dog
        }
        func person(_ name: String, _ city: String?, _ dogs: [Dog]) -> Person {
            let person = Person()
            person.name = name
            person.city = city
            try? person.dogs.append(contentsOf: dogs)
            return person
        }
        let rex = dog(1, "Rex", 5), fido = dog(2, "Fido", 2), bo = dog(3, "Bo", 7), lassie = dog(4, "Lassie", 9), ben = dog(5, "Ben", 1)
        let alice = person("Alice", "Oslo", [rex, fido]), bob = person("Bob", "Bergen", [lassie])
        let carol = person("Carol", nil, []), dave = person("Dave", "Oslo", [ben, bo])
        alice.bestFriend = bob
        rex.owner = alice
        fido.owner = bob
        lassie.owner = carol
        ben.owner = dave
        try db.write { for person in [alice, bob, carol, dave] { try db.add(person) } }
    }

    static func ids(_ results: Results<Dog>) -> [Int] { results.map(\.id) }
    static func names(_ results: Results<Person>) -> [String] { results.map(\.name).sorted() }

    static func person(_ db: Database, _ name: String) throws -> Person {
        try #require(try db.objects(Person.self).where { $0.name == name }.first)
    }

    @Test func throughALink() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.people(db)
        let dogs = db.objects(Dog.self)
        #expect(Self.ids(try dogs.where { $0.owner.city == "Oslo" }) == [1, 5])
        #expect(Self.ids(try dogs.where { $0.owner.city != "Oslo" }) == [2, 3, 4])
        // A null link reaches an object whose properties are all null.
        #expect(Self.ids(try dogs.where { $0.owner.city == nil }) == [3, 4])
        #expect(Self.ids(try dogs.where { $0.owner.name.beginsWith("") }) == [1, 2, 4, 5])
        #expect(Self.ids(try dogs.where { $0.owner == nil }) == [3])
        #expect(Self.ids(try dogs.where { $0.owner != nil }) == [1, 2, 4, 5])
        let alice = try Self.person(db, "Alice")
        #expect(Self.ids(try dogs.where { $0.owner == alice }) == [1])
        #expect(Self.ids(try dogs.where { $0.owner != alice && $0.age > 3 }) == [3, 4])
        // Two links: the best friend of the owner.
        #expect(Self.ids(try dogs.where { $0.owner.bestFriend.city == "Bergen" }) == [1])
        #expect(Self.ids(try dogs.where { $0.owner.bestFriend == nil }) == [2, 3, 4, 5])
        // With the type's own properties, and by name on the linked type.
        #expect(Self.ids(try dogs.where { $0.owner.city == "Oslo" && $0.age > 3 }) == [1])
        #expect(Self.ids(try dogs.where { $0.owner["city"].in(["Bergen", "Oslo"]) }) == [1, 2, 5])
        #expect(Self.ids(try dogs.where { ("A"..."B").contains($0.owner.name) }) == [1])
    }

    @Test func aDeletedTargetReadsAsNull() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.people(db)
        let dogs = db.objects(Dog.self)
        let inOslo = try dogs.where { $0.owner.city == "Oslo" }
        let ownerless = try dogs.where { $0.owner == nil }
        let dave = try Self.person(db, "Dave")
        try db.write { try db.delete(dave) }
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 5)?.owner == nil)
        #expect(Self.ids(inOslo) == [1])
        #expect(Self.ids(ownerless) == [3, 5])
        #expect(Self.ids(try dogs.where { $0.owner.city == nil }) == [3, 4, 5])
    }

    @Test func throughAListSomeOrEvery() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.people(db)
        let people = db.objects(Person.self)
        // Some dog (Realm's ANY): an empty list has none.
        #expect(Self.names(try people.where { $0.dogs.age > 5 }) == ["Bob", "Dave"])
        #expect(Self.names(try people.where { $0.dogs.name == "Rex" }) == ["Alice"])
        #expect(Self.names(try people.where { $0.dogs.name.in(["Bo", "Lassie"]) }) == ["Bob", "Dave"])
        #expect(Self.names(try people.where { !($0.dogs.age > 5) }) == ["Alice", "Carol"])
        // Every dog (ALL): true for an empty list.
        #expect(Self.names(try people.where { $0.dogs.allSatisfy { $0.age > 1 } }) == ["Alice", "Bob", "Carol"])
        #expect(Self.names(try people.where { $0.dogs.allSatisfy { $0.age > 1 } && !$0.dogs.isEmpty }) == ["Alice", "Bob"])
        // One dog satisfying both, against two conditions each met by some dog.
        #expect(Self.names(try people.where { $0.dogs.contains { $0.age > 5 && $0.name == "Bo" } }) == ["Dave"])
        #expect(Self.names(try people.where { $0.dogs.contains { $0.age > 5 && $0.name == "Ben" } }).isEmpty)
        #expect(Self.names(try people.where { $0.dogs.age > 5 && $0.dogs.name == "Ben" }) == ["Dave"])
        #expect(Self.names(try people.where { $0.dogs.isEmpty }) == ["Carol"])
        // How many (Realm's `$0.dogs.count`).
        #expect(Self.names(try people.where { $0.dogs.count > 1 }) == ["Alice", "Dave"])
        #expect(Self.names(try people.where { $0.dogs.count == 0 }) == ["Carol"])
        #expect(Self.names(try people.where { $0.dogs.count <= 1 && $0.dogs.count != 0 }) == ["Bob"])
        #expect(Self.ids(try db.objects(Dog.self).where { $0.owner.dogs.count == 0 }) == [3, 4])  // none through a null link
        // A list, then a link: some dog whose owner lives in Oslo.
        #expect(Self.names(try people.where { $0.dogs.owner.city == "Oslo" }) == ["Alice", "Dave"])
        // A link compared inside a list: some dog without an owner, some dog with one.
        #expect(Self.names(try people.where { $0.dogs.owner == nil }) == ["Dave"])  // Bo
        #expect(Self.names(try people.where { $0.dogs.owner != nil }) == ["Alice", "Bob", "Dave"])
        // A link, then a list: dogs whose owner lists a dog older than 8.
        #expect(Self.ids(try db.objects(Dog.self).where { $0.owner.dogs.age > 8 }) == [2])
        // Through a null link the list is empty: some is false, every is true.
        #expect(Self.ids(try db.objects(Dog.self).where { $0.owner.dogs.allSatisfy { $0.age > 100 } }) == [3, 4])
    }

    @Test func aListOfObjectsWithABoolCondition() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Checklist.self, Chore.self, Person.self, Dog.self]))
        var nextID = 0
        try db.write {
            for (name, done) in [("home", [true, true]), ("work", [true, false]), ("none", [])] {
                let list = Checklist()
                list.name = name
                for isDone in done {
                    let chore = Chore()
                    nextID += 1
                    chore.id = nextID
                    chore.done = isDone
                    try list.items.append(chore)
                }
                try db.add(list)
            }
        }
        let lists = db.objects(Checklist.self)
        #expect(try lists.where { $0.items.allSatisfy { $0.done } }.map(\.name) == ["home", "none"])
        #expect(try lists.where { $0.items.contains { $0.done } }.map(\.name) == ["home", "work"])
        #expect(try lists.where { $0.items.contains { !$0.done } }.map(\.name) == ["work"])
        #expect(try lists.where { $0.items.done }.map(\.name) == ["home", "work"])
    }

    /// Lists of values: `contains(_:)` (some element equals), a condition
    /// on one element (`contains(where:)`), on every element (`allSatisfy`),
    /// `isEmpty`; optional elements; through a link.
    @Test func throughAListOfValues() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Bag.self, LogEntry.self, Person.self, Dog.self]))
        try db.write {
            for (label, ints, optionals, strings) in [("a", [1, 5, 9], [nil, 2], ["swift", "db"]), ("b", [], [], []), ("c", [7], [3], ["Swift"])] as [(String, [Int], [Int?], [String])] {
                let bag = Bag()
                bag.label = label
                try bag.ints.append(contentsOf: ints)
                try bag.optionalInts.append(contentsOf: optionals)
                try bag.strings.append(contentsOf: strings)
                try db.add(bag)
            }
        }
        let bags = db.objects(Bag.self)
        func labels(_ results: Results<Bag>) -> [String] { results.map(\.label) }
        #expect(labels(try bags.where { $0.ints.contains(5) }) == ["a"])
        #expect(labels(try bags.where { !$0.ints.contains(5) }) == ["b", "c"])
        #expect(labels(try bags.where { $0.ints.contains { $0 > 6 } }) == ["a", "c"])
        #expect(labels(try bags.where { $0.ints.contains { (6...8).contains($0) } }) == ["c"])
        #expect(labels(try bags.where { $0.ints.allSatisfy { $0 > 0 } }) == ["a", "b", "c"])  // b: none to fail
        #expect(labels(try bags.where { $0.ints.allSatisfy { $0 > 3 } }) == ["b", "c"])
        #expect(labels(try bags.where { $0.ints.isEmpty }) == ["b"])
        #expect(labels(try bags.where { $0.ints.count == 3 }) == ["a"])
        #expect(labels(try bags.where { $0.optionalInts.count >= 1 }) == ["a", "c"])
        #expect(labels(try bags.where { $0.optionalInts.contains(nil) }) == ["a"])
        #expect(labels(try bags.where { $0.optionalInts.contains { $0 >= 2 } }) == ["a", "c"])
        #expect(labels(try bags.where { $0.strings.contains("swift") }) == ["a"])
        #expect(labels(try bags.where { $0.strings.contains { $0.beginsWith("sw", caseInsensitive: true) } }) == ["a", "c"])
        #expect(labels(try bags.where { $0.strings.contains("db") && $0.ints.contains(9) }) == ["a"])
        // Live: an element appended moves a bag in.
        let sevens = try bags.where { $0.ints.contains(7) }
        try db.write { try #require(bags.first { $0.label == "b" }).ints.append(7) }
        #expect(labels(sevens) == ["b", "c"])
        // Through a link, and a null link's empty list.
        try LinkQueryTests.people(db)
        try db.write { try Self.person(db, "Alice").nicknames.append(contentsOf: ["Al", "Ali"]) }
        #expect(Self.ids(try db.objects(Dog.self).where { $0.owner.nicknames.contains("Al") }) == [1])
        #expect(Self.ids(try db.objects(Dog.self).where { $0.owner.nicknames.allSatisfy { $0 == "x" } }) == [2, 3, 4, 5])
    }

    @Test func resultsThroughLinksAreLiveAndFreeze() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.people(db)
        let inOslo = try db.objects(Dog.self).where { $0.owner.city == "Oslo" }
        let withOldDogs = try db.objects(Person.self).where { $0.dogs.age > 5 }
        let frozen = try inOslo.freeze()
        try db.write {
            try Self.person(db, "Bob").city = "Oslo"
            // Inside the write, too.
            #expect(Self.ids(inOslo) == [1, 2, 5])
            try #require(try db.object(ofType: Dog.self, forPrimaryKey: 1)).age = 6
            #expect(Self.names(withOldDogs) == ["Alice", "Bob", "Dave"])
        }
        #expect(Self.ids(inOslo) == [1, 2, 5])
        #expect(Self.names(withOldDogs) == ["Alice", "Bob", "Dave"])
        // A dog leaving a list, and a dog deleted.
        try db.write {
            try Self.person(db, "Dave").dogs.remove(at: 1)
            try db.delete(try #require(try db.object(ofType: Dog.self, forPrimaryKey: 4)))
        }
        #expect(Self.names(withOldDogs) == ["Alice"])
        // The frozen results keep their version, on any thread.
        let seen = SumBox()
        let box = Unchecked(frozen)
        useOnAnotherThread { seen.add(box.value.reduce(0) { $0 * 10 + $1.id }) }
        #expect(seen.values == [15])
    }

    @Test func notificationsFollowTheLinkedObjects() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.people(db)
        let log = NotificationTests.Log<NotificationTests.Seen>()
        // Dogs in Oslo: Rex, Ben. A change of a person (not of a dog) moves them.
        let dogsToken = try db.objects(Dog.self).where { $0.owner.city == "Oslo" }.observe { log.append(NotificationTests.seen($0)) }
        #expect(log.entries == [.initial(2)])
        try db.write { try Self.person(db, "Alice").city = "Paris" }
        #expect(log.entries.last == .update(deletions: [0], insertions: [], modifications: []))
        // A change to a person that moves no dog in or out: nothing.
        try db.write { try Self.person(db, "Dave").name = "David" }
        #expect(log.entries.count == 2)
        dogsToken.invalidate()

        // People with a dog older than 5: a dog's age (not a person or a list) moves them.
        let people = try db.objects(Person.self).where { $0.dogs.age > 5 }.sorted(by: \.name)
        let peopleLog = NotificationTests.Log<NotificationTests.Seen>()
        let peopleToken = try people.observe { peopleLog.append(NotificationTests.seen($0)) }
        #expect(peopleLog.entries == [.initial(2)])  // Bob, David
        try db.write { try #require(try db.object(ofType: Dog.self, forPrimaryKey: 2)).age = 8 }  // Fido, in Alice's list
        #expect(peopleLog.entries.last == .update(deletions: [], insertions: [0], modifications: []))
        #expect(Self.names(people) == ["Alice", "Bob", "David"])
        peopleToken.invalidate()

        // Bob's nicknames (a list of values, not a person's record) move him in.
        let nicknamed = try db.objects(Person.self).where { $0.nicknames.contains("Bobby") || $0.nicknames.count > 2 }
        let nickLog = NotificationTests.Log<NotificationTests.Seen>()
        let nickToken = try nicknamed.observe { nickLog.append(NotificationTests.seen($0)) }
        #expect(nickLog.entries == [.initial(0)])
        try db.write { try Self.person(db, "Bob").nicknames.append("Bobby") }
        #expect(nickLog.entries.last == .update(deletions: [], insertions: [0], modifications: []))
        try db.write { try Self.person(db, "Bob").nicknames.removeAll() }
        #expect(nickLog.entries.last == .update(deletions: [0], insertions: [], modifications: []))
        nickToken.invalidate()
    }

    @Test func linksAndListsByNameOrThroughNoLinkAreTypedErrors() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(throws: DatabaseError.invalidValue(type: "Dog", property: "owner", detail: "a link or list is queried through its key path ($0.owner.…)")) {
            try db.objects(Dog.self).where { $0["owner"] == nil }
        }
        #expect(throws: DatabaseError.unknownProperty(type: "Person", property: "colour")) {
            try db.objects(Dog.self).where { $0.owner["colour"] == 1 }
        }
        #expect(throws: DatabaseError.invalidValue(type: "Person", property: "nicknames", detail: "a link or list is queried through its key path ($0.nicknames.…)")) {
            try db.objects(Person.self).where { $0["nicknames"] == "Al" }
        }
        #expect(throws: DatabaseError.unmanagedObject(type: "Person", operation: "compare a link with it")) {
            try db.objects(Dog.self).where { $0.owner == Person() }
        }
    }
}
