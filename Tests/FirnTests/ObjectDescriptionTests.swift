import Foundation
import Testing
@testable import Firn

/// `print(dog)` shows the type and its stored properties, as Realm prints an
/// object; links and list elements by their primary key; an object that
/// cannot be read says why instead of stopping the program.
@Suite struct ObjectDescriptionTests {
    /// A type without a primary key, listed by another: elements by generated key.
    final class Shelf: Object {
        @Persisted var label = ""
        @Persisted var entries = List<LogEntry>()
        @Persisted var sizes = List<Int?>()
    }

    static let annID = UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!

    /// Ann with two dogs and a nickname; Rex links back to her.
    static func kennel(_ db: Database) throws -> (ann: Person, rex: Dog) {
        let ann = Person("Ann", id: annID)
        ann.city = "Oslo"
        try ann.nicknames.append(contentsOf: ["Annie"])
        let rex = Dog(7, "Rex", age: 3, owner: ann)
        try db.write {
            try db.add(rex)
            try ann.dogs.append(contentsOf: [rex, Dog(8, "Bo")])
        }
        return (ann, rex)
    }

    /// Rex, managed or not: his owner shown by primary key.
    static let rexDescription = """
            Dog {
            \tid = 7;
            \tname = Rex;
            \tage = 3;
            \townerID = nil;
            \towner = Person(id = 00000000-0000-0000-0000-0000000000A1);
            }
            """

    @Test func aManagedObjectPrintsItsTypeAndEachStoredProperty() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (ann, rex) = try Self.kennel(db)
        #expect("\(rex)" == Self.rexDescription)
        #expect(ann.description == """
            Person {
            \tid = 00000000-0000-0000-0000-0000000000A1;
            \tname = Ann;
            \tcity = Oslo;
            \tdogs = List<Dog> [Dog(id = 7), Dog(id = 8)];
            \tnicknames = List<String> [Annie];
            \tbestFriend = nil;
            }
            """)
    }

    @Test func anUnmanagedObjectPrintsTheSameWay() throws {
        let ann = Person("Ann", id: Self.annID)
        let rex = Dog(7, "Rex", age: 3, owner: ann)
        try ann.nicknames.append(contentsOf: ["Annie", "A"])
        #expect(rex.description == Self.rexDescription)
        #expect(ann.description.contains("\tnicknames = List<String> [Annie, A];\n"))
        #expect(ann.description.contains("\tdogs = List<Dog> [];\n"))
    }

    @Test func everyStoredTypePrintsAsItsSwiftValue() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let everything = Everything()
        everything.key = "k"
        everything.data = Data([1, 2, 3])
        everything.double = 1.5
        everything.optionalInt8 = -8
        everything.uuid = Self.annID
        try db.write { try db.add(everything) }
        let text = everything.description
        for line in ["key = k", "bool = false", "int8 = 0", "double = 1.5", "data = <3 bytes>",
                     "date = 2001-01-01 00:00:00 +0000", "uuid = 00000000-0000-0000-0000-0000000000A1",
                     "optionalInt8 = -8", "optionalString = nil"] {
            #expect(text.contains("\t\(line);\n"), "\(line) in \(text)")
        }
    }

    @Test func generatedKeysLongListsAndNullElementsAreSummarized() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([LogEntry.self, Shelf.self]))
        let shelf = Shelf()
        shelf.label = "top"
        try db.write {
            try db.add(shelf)
            for n in 0..<12 {
                let entry = LogEntry()
                entry.message = "m\(n)"
                try shelf.entries.append(entry)
            }
            try shelf.sizes.append(contentsOf: [1, nil])
        }
        #expect(shelf.description == """
            Shelf {
            \tlabel = top;
            \tentries = List<LogEntry> [LogEntry(#1), LogEntry(#2), LogEntry(#3), LogEntry(#4), LogEntry(#5), \
            LogEntry(#6), LogEntry(#7), LogEntry(#8), LogEntry(#9), LogEntry(#10), … 2 more];
            \tsizes = List<Int?> [1, nil];
            }
            """)
    }

    @Test func aLinkToADeletedObjectPrintsNil() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (ann, rex) = try Self.kennel(db)
        try db.write { try db.delete(ann) }
        #expect(rex.description.contains("\towner = nil;\n"), "\(rex)")
    }

    @Test func aFrozenObjectSaysWhichVersionItReads() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (_, rex) = try Self.kennel(db)
        let frozen = try rex.freeze()
        #expect(frozen.description.hasPrefix("Dog (frozen at version \(db.version)) {\n\tid = 7;\n"), "\(frozen)")
    }

    @Test func aDeletedObjectSaysSoInsteadOfStoppingTheProgram() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (_, rex) = try Self.kennel(db)
        try db.write { try db.delete(rex) }
        #expect(rex.description == "Dog { [deleted] }")
    }

    @Test func anObjectOfAnInvalidatedInstanceSaysSo() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (_, rex) = try Self.kennel(db)
        db.invalidate()
        #expect(rex.description == "Dog { [invalidated: its Database instance's invalidate() released the version it read] }")
    }

    @Test func aLiveObjectDescribedOffItsThreadReadsNothingAndSaysWhereItBelongs() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (_, rex) = try Self.kennel(db)
        let box = Unchecked(rex)
        let text = try onNewThread { box.value.description }
        #expect(text.hasPrefix("Dog { [a live object of the Database on thread "), "\(text)")
        #expect(text.hasSuffix(": describe it there] }"), "\(text)")
    }
}
