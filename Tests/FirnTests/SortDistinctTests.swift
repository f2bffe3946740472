import Firn
import Foundation
import Testing

/// `sorted(by: [SortDescriptor])` (several keys, by key path or by name)
/// and `distinct(by:)`, in the order they were asked for.
@Suite struct SortDistinctTests {
    /// (id, name, age): names and ages repeat.
    static let rows: [(Int, String, Int)] = [(1, "Rex", 5), (2, "Fido", 2), (3, "Rex", 2), (4, "Bo", 5), (5, "Fido", 9), (6, "Bo", 2)]

    static func dogs(_ db: Database) throws {
        try db.write {
            for (id, name, age) in rows {
                let dog = Dog()
                dog.id = id
                dog.name = name
                dog.age = age
                if id == 3 { dog.ownerID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)) }
                try db.add(dog)
            }
        }
    }

    static func ids(_ results: Results<Dog>) -> [Int] { results.map(\.id) }

    @Test func severalKeys() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let all = db.objects(Dog.self)
        #expect(Self.ids(try all.sorted(by: [SortDescriptor(keyPath: \Dog.name), SortDescriptor(keyPath: \Dog.age)])) == [6, 4, 2, 5, 3, 1])
        #expect(Self.ids(try all.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")])) == [5, 4, 1, 6, 2, 3])
        // Equal in every key: key order.
        #expect(Self.ids(try all.sorted(by: [SortDescriptor(keyPath: \Dog.age)])) == [2, 3, 6, 1, 4, 5])
        #expect(Self.ids(try all.sorted(by: [SortDescriptor(keyPath: \Dog.age).reversed()])) == [5, 1, 4, 2, 3, 6])
        // With a condition; an empty list of keys keeps key order.
        #expect(Self.ids(try all.where { $0.age < 9 }.sorted(by: [SortDescriptor(keyPath: \Dog.name, ascending: false), SortDescriptor(keyPath: \Dog.id, ascending: false)])) == [3, 1, 2, 6, 4])
        #expect(Self.ids(try all.sorted(by: [])) == [1, 2, 3, 4, 5, 6])
        // A later order replaces the one just before it.
        #expect(Self.ids(try all.sorted(by: \.age).sorted(by: \.name)) == [4, 6, 2, 5, 1, 3])
        // Empty results sort to empty results.
        #expect(Self.ids(try all.where { $0.age > 100 }.sorted(by: [SortDescriptor(keyPath: \Dog.name)])).isEmpty)
    }

    @Test func distinctKeepsTheFirstOfEachValue() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let all = db.objects(Dog.self)
        #expect(Self.ids(try all.distinct(by: [\.name])) == [1, 2, 4])
        #expect(Self.ids(try all.distinct(by: ["age"])) == [1, 2, 5])
        #expect(Self.ids(try all.distinct(by: [\.name, \.age])) == [1, 2, 3, 4, 5, 6])
        // Null is a value of its own.
        #expect(Self.ids(try all.distinct(by: [\.ownerID])) == [1, 3])
        // Which object is kept follows the order before the distinct…
        #expect(Self.ids(try all.sorted(by: \.age, ascending: false).distinct(by: [\.name])) == [5, 1, 4])
        // …and an order after it sorts what was kept.
        #expect(Self.ids(try all.distinct(by: [\.name]).sorted(by: \.name)) == [4, 2, 1])
        #expect(Self.ids(try all.where { $0.age == 2 }.distinct(by: [\.age])) == [2])
        #expect(try all.distinct(by: [\.name]).count == 3)
        #expect(Self.ids(try all.where { $0.age > 100 }.distinct(by: [\.name])).isEmpty)
    }

    @Test func distinctAndSortedResultsAreLive() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let names = try db.objects(Dog.self).distinct(by: [\.name]).sorted(by: [SortDescriptor(keyPath: \Dog.name)])
        let frozen = try names.freeze()
        #expect(Self.ids(names) == [4, 2, 1])
        try db.write {
            try db.delete(try #require(try db.object(ofType: Dog.self, forPrimaryKey: 4)))
            let ann = Dog()
            ann.id = 7
            ann.name = "Ann"
            try db.add(ann)
        }
        #expect(Self.ids(names) == [7, 6, 2, 1])
        #expect(Self.ids(frozen) == [4, 2, 1])
    }

    /// Realm's dotted key paths through to-one links: `"owner.name"`. A null
    /// or deleted link reads null (first when ascending); a change of the
    /// linked object reorders live results and reaches their observers.
    @Test func throughAToOneLink() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try LinkQueryTests.people(db)  // owners: Rex Alice, Fido Bob, Bo none, Lassie Carol, Ben Dave
        let dogs = db.objects(Dog.self)
        let byOwner = try dogs.sorted(by: [SortDescriptor(keyPath: "owner.name"), SortDescriptor(keyPath: \Dog.age)])
        #expect(Self.ids(byOwner) == [3, 1, 2, 4, 5])
        #expect(Self.ids(try dogs.sorted(byKeyPath: "owner.city", ascending: false)) == [1, 5, 2, 3, 4])  // Oslo, Oslo, Bergen, nulls
        #expect(Self.ids(try dogs.sorted(byKeyPath: "owner.bestFriend.name")) == [2, 3, 4, 5, 1])
        #expect(Self.ids(try dogs.distinct(by: ["owner.city"])) == [1, 2, 3])
        let log = NotificationTests.Log<NotificationTests.Seen>()
        let token = try byOwner.observe { log.append(NotificationTests.seen($0)) }
        try db.write { try LinkQueryTests.person(db, "Alice").name = "Zed" }  // a person's record, not a dog's
        #expect(Self.ids(byOwner) == [3, 2, 4, 5, 1])
        #expect(log.entries.last == .update(deletions: [1], insertions: [4], modifications: []))
        token.invalidate()
        try db.write { try db.delete(try LinkQueryTests.person(db, "Bob")) }
        #expect(Self.ids(byOwner) == [2, 3, 4, 5, 1])  // Fido's owner is gone: null, and Fido (2) is younger than Bo (7)
        #expect(throws: DatabaseError.unknownProperty(type: "Person", property: "colour")) { try dogs.sorted(byKeyPath: "owner.colour") }
        #expect(throws: DatabaseError.invalidValue(type: "Dog", property: "name", detail: "only a link is followed in \"name.count\"")) {
            try dogs.sorted(byKeyPath: "name.count")
        }
        #expect(throws: DatabaseError.invalidValue(type: "Person", property: "dogs", detail: "only a link is followed in \"owner.dogs.age\"")) {
            try dogs.sorted(byKeyPath: "owner.dogs.age")
        }
    }

    /// The same through Swift key paths, as Realm's: `\Dog.owner?.name`
    /// sorts as "owner.name" does.
    @Test func swiftKeyPathsThroughToOneLinks() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try LinkQueryTests.people(db)  // owners: Rex Alice, Fido Bob, Bo none, Lassie Carol, Ben Dave
        let dogs = db.objects(Dog.self)
        let byOwner = try dogs.sorted(by: [SortDescriptor(keyPath: \Dog.owner?.name), SortDescriptor(keyPath: \Dog.age)])
        #expect(Self.ids(byOwner) == [3, 1, 2, 4, 5])
        #expect(Self.ids(try dogs.sorted(by: \.owner?.city, ascending: false)) == [1, 5, 2, 3, 4])
        #expect(Self.ids(try dogs.sorted(by: \.owner?.bestFriend?.name)) == [2, 3, 4, 5, 1])
        #expect(Self.ids(try dogs.distinct(by: [\.owner?.city])) == [1, 2, 3])
        try db.write { try LinkQueryTests.person(db, "Alice").name = "Zed" }
        #expect(Self.ids(byOwner) == [3, 2, 4, 5, 1])
        #expect(throws: DatabaseError.invalidValue(type: "Person", property: "bestFriend", detail: "links and lists cannot be sorted by")) {
            try dogs.sorted(by: \.owner?.bestFriend)
        }
        #expect(throws: DatabaseError.unknownProperty(type: "Dog", property: "a key path to Optional<Int> that reads no stored property")) {
            try dogs.sorted(by: [SortDescriptor(keyPath: \Dog.owner?.name.count)])
        }
    }

    @Test func unknownOrUnsortablePropertiesAreTypedErrors() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self, Person.self, Dog.self]))
        let tagged = db.objects(Tagged.self)
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "colour")) {
            try tagged.sorted(by: [SortDescriptor(keyPath: \Tagged.rank), SortDescriptor(keyPath: "colour")])
        }
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "a key path to Int that reads no stored property")) {
            try tagged.sorted(by: [SortDescriptor(keyPath: \Tagged.constant)])
        }
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "a key path to Int that reads no stored property")) {
            try tagged.distinct(by: [\.constant])
        }
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "colour")) { try tagged.distinct(by: ["colour"]) }
        // A descriptor of another type's key path names nothing here.
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "a key path to Int that reads no stored property")) {
            try tagged.sorted(by: [SortDescriptor(keyPath: \Dog.age)])
        }
        #expect(throws: DatabaseError.invalidValue(type: "Person", property: "dogs", detail: "links and lists cannot be distinct by")) {
            try db.objects(Person.self).distinct(by: ["dogs"])
        }
        #expect(throws: DatabaseError.invalidValue(type: "Dog", property: "owner", detail: "links and lists cannot be sorted by")) {
            try db.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "owner")])
        }
    }
}
