import Firn
import Foundation
import Testing

/// `where` and `sorted`: typed conditions over key paths, conditions by
/// property name checked when made, typed errors for unknown properties
/// and mismatched values, live and lazy results.
@Suite struct QueryTests {
    static func dogs(_ db: Database) throws {
        let rows: [(Int, String, Int)] = [(1, "Rex", 5), (2, "Fido", 2), (3, "rexy", 7), (4, "Lassie", 4), (5, "Rex", 1), (6, "Ben", 13)]
        try db.write {
            for (id, name, age) in rows {
                let dog = Dog()
                dog.id = id
                dog.name = name
                dog.age = age
                if id % 2 == 0 { dog.ownerID = UUID() }
                try db.add(dog)
            }
        }
    }

    static func ids(_ results: Results<Dog>) -> [Int] { results.map(\.id) }

    @Test func comparisonsAndCombinations() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let all = db.objects(Dog.self)
        #expect(Self.ids(try all.where { $0.age > 3 && $0.name == "Rex" }) == [1])
        #expect(Self.ids(try all.where { $0.age >= 5 }) == [1, 3, 6])
        #expect(Self.ids(try all.where { $0.age < 2 || $0.age <= 2 }) == [2, 5])
        #expect(Self.ids(try all.where { $0.name != "Rex" }) == [2, 3, 4, 6])
        #expect(Self.ids(try all.where { !($0.name == "Rex") && $0.age < 10 }) == [2, 3, 4])
        #expect(Self.ids(try all.where { $0.age.in([2, 13, 99]) }) == [2, 6])
        #expect(Self.ids(try all.where { $0.ownerID == nil }) == [1, 3, 5])
        #expect(Self.ids(try all.where { $0.ownerID != nil }) == [2, 4, 6])
        #expect(Self.ids(try all.where { $0.age > 3 }.where { $0.age < 6 }) == [1, 4])
    }

    @Test func stringMatches() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let all = db.objects(Dog.self)
        #expect(Self.ids(try all.where { $0.name.contains("ex") }) == [1, 3, 5])
        #expect(Self.ids(try all.where { $0.name.beginsWith("Re") }) == [1, 5])
        #expect(Self.ids(try all.where { $0.name.beginsWith("re", caseInsensitive: true) }) == [1, 3, 5])
        #expect(Self.ids(try all.where { $0.name.endsWith("ie") }) == [4])
        #expect(Self.ids(try all.where { $0.name.contains("SS", caseInsensitive: true) }) == [4])
        #expect(Self.ids(try all.where { $0.name.contains("") }) == [1, 2, 3, 4, 5, 6])
    }

    @Test func conditionsByPropertyName() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let all = db.objects(Dog.self)
        #expect(Self.ids(try all.where { $0["age"] > 4 && $0["name"].beginsWith("R") }) == [1])
        #expect(Self.ids(try all.where { $0["age"] == Int8(2) }) == [2])  // integer widths compare by value
        #expect(Self.ids(try all.where { $0["ownerID"] == nil }) == [1, 3, 5])
        #expect(Self.ids(try all.where { $0["name"].in(["Ben", "Fido"]) }) == [2, 6])
    }

    @Test func anUnknownPropertyIsATypedError() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        let all = db.objects(Tagged.self)
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "colour")) { try all.where { $0["colour"] == 1 } }
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "a key path to Int that reads no stored property")) { try all.where { $0.constant == 7 } }
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "colour")) { try all.sorted(byKeyPath: "colour") }
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "a key path to Int that reads no stored property")) { try all.sorted(by: \.constant) }
    }

    @Test func aValueOfTheWrongTypeIsATypedError() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let all = db.objects(Dog.self)
        #expect(throws: DatabaseError.typeMismatch(type: "Dog", property: "age", expected: "Int", found: "String")) {
            try all.where { $0["age"] > "three" }
        }
        #expect(throws: DatabaseError.typeMismatch(type: "Dog", property: "name", expected: "String", found: "nil")) {
            try all.where { $0["name"] == nil }
        }
        #expect(throws: DatabaseError.typeMismatch(type: "Dog", property: "age", expected: "Int", found: "String")) {
            try all.where { $0["age"].contains("1") }
        }
        #expect(throws: DatabaseError.typeMismatch(type: "Dog", property: "ownerID", expected: "UUID?", found: "Int")) {
            try all.where { $0["ownerID"].in([nil, 3]) }
        }
        let persons = db.objects(Person.self)
        #expect(throws: DatabaseError.invalidValue(type: "Person", property: "dogs", detail: "a link or list is queried through its key path ($0.dogs.…)")) {
            try persons.where { $0["dogs"] == nil }
        }
    }

    @Test func anOperatorTheTypeLacksIsATypedError() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        #expect(throws: DatabaseError.invalidValue(type: "Tagged", property: "flag", detail: "a Bool has no order (use == or !=)")) {
            try db.objects(Tagged.self).where { $0["flag"] > false }
        }
    }

    @Test func sortingByKeyPathAndByName() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let all = db.objects(Dog.self)
        #expect(Self.ids(try all.sorted(by: \.age)) == [5, 2, 4, 1, 3, 6])
        #expect(Self.ids(try all.sorted(by: \.age, ascending: false)) == [6, 3, 1, 4, 2, 5])
        // Equal names keep key order; strings sort by code point ("r" after "R").
        #expect(Self.ids(try all.sorted(byKeyPath: "name")) == [6, 2, 4, 1, 5, 3])
        #expect(Self.ids(try all.where { $0.age > 3 }.sorted(by: \.name)) == [6, 4, 1, 3])
        // Nulls first when ascending.
        #expect(Array(Self.ids(try all.sorted(by: \.ownerID)).prefix(3)) == [1, 3, 5])
        let sorted = try all.sorted(by: \.age)
        #expect(sorted[0].id == 5 && sorted[5].id == 6 && sorted.count == 6)
    }

    @Test func queryResultsAreLive() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let old = try db.objects(Dog.self).where { $0.age > 4 }.sorted(by: \.age)
        #expect(Self.ids(old) == [1, 3, 6])
        try db.write {
            try db.object(ofType: Dog.self, forPrimaryKey: 2)?.age = 6
            #expect(Self.ids(old) == [1, 2, 3, 6])  // inside the write, too
        }
        #expect(old.count == 4)
        try db.write {
            for dog in old where dog.age > 5 { try db.delete(dog) }  // deleting while iterating
        }
        #expect(Self.ids(old) == [1])
    }

    @Test func frozenQueryResultsKeepTheirVersionOnAnyThread() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.dogs(db)
        let frozen = try db.objects(Dog.self).where { $0.name.contains("ex") }.sorted(by: \.age, ascending: false).freeze()
        try db.write { try db.delete(try #require(try db.object(ofType: Dog.self, forPrimaryKey: 3))) }
        let seen = SumBox()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                seen.add(frozen.reduce(0) { $0 * 10 + $1.id })
                group.leave()
            }.start()
        }
        group.wait()
        #expect(seen.values == [315, 315])
        #expect(Self.ids(try frozen.thaw()) == [1, 5])
    }
}
