import Firn
import Foundation
import Testing

/// A Bool property as a condition by itself, `in`, and ranges
/// (`(1...5).contains($0.priority)`), over optionals and nulls too.
@Suite struct QueryOperatorTests {
    static let start = Date(timeIntervalSinceReferenceDate: 1_000_000)

    /// Chores 1…6: done on even ids; urgent true/false/nil in turn;
    /// priority = id; minutes nil on multiples of 3; due days after `start`.
    static func chores(_ db: Database) throws {
        try db.write {
            for id in 1...6 {
                let chore = Chore()
                chore.id = id
                chore.title = ["wash", "cook", "shop", "mend", "sweep", "iron"][id - 1]
                chore.done = id % 2 == 0
                chore.urgent = [true, false, nil][id % 3]
                chore.priority = Int8(id)
                chore.minutes = id % 3 == 0 ? nil : id * 10
                chore.cost = Double(id) * 1.5
                chore.due = id == 6 ? nil : start.addingTimeInterval(Double(id) * 86_400)
                try db.add(chore)
            }
        }
    }

    static func ids(_ results: Results<Chore>) -> [Int] { results.map(\.id) }

    static func open(_ scratch: Scratch) throws -> Database {
        let db = try Database(configuration: scratch.configuration([Chore.self, Person.self, Dog.self]))
        try chores(db)
        return db
    }

    @Test func aBoolPropertyIsACondition() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let all = db.objects(Chore.self)
        #expect(Self.ids(try all.where { $0.done }) == [2, 4, 6])
        #expect(Self.ids(try all.where { !$0.done }) == [1, 3, 5])
        #expect(Self.ids(try all.where { $0.done && $0.priority > 2 }) == [4, 6])
        #expect(Self.ids(try all.where { $0.priority > 4 && !$0.done }) == [5])
        #expect(Self.ids(try all.where { !$0.done || $0.priority == 2 }) == [1, 2, 3, 5])
        #expect(Self.ids(try all.where { $0.done || $0.done }) == [2, 4, 6])
        #expect(Self.ids(try all.where { !(!$0.done) }) == [2, 4, 6])
        // A Bool? property compares (nulls are neither).
        #expect(Self.ids(try all.where { $0.urgent == true }) == [3, 6])
        #expect(Self.ids(try all.where { $0.urgent == false }) == [1, 4])
        #expect(Self.ids(try all.where { $0.urgent == nil }) == [2, 5])
        // No match is empty results, not an error.
        #expect(Self.ids(try all.where { $0.done && $0.priority > 100 }).isEmpty)
    }

    @Test func inMatchesAnyOfTheValues() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let all = db.objects(Chore.self)
        #expect(Self.ids(try all.where { $0.title.in(["cook", "iron", "nap"]) }) == [2, 6])
        #expect(Self.ids(try all.where { $0.title.in([]) }).isEmpty)
        #expect(Self.ids(try all.where { $0.minutes.in([nil, 10]) }) == [1, 3, 6])
        #expect(Self.ids(try all.where { !$0.priority.in([1, 2, 3]) }) == [4, 5, 6])
        #expect(Self.ids(try all.where { $0["priority"].in([Int8(2), 4]) }) == [2, 4])
    }

    @Test func rangesReadAsSwiftRanges() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let all = db.objects(Chore.self)
        #expect(Self.ids(try all.where { (2...4).contains($0.priority) }) == [2, 3, 4])
        #expect(Self.ids(try all.where { (2..<4).contains($0.priority) }) == [2, 3])
        #expect(Self.ids(try all.where { (4...4).contains($0.priority) }) == [4])
        #expect(Self.ids(try all.where { (4..<4).contains($0.priority) }).isEmpty)  // an empty range
        // Optional properties: null is in no range.
        #expect(Self.ids(try all.where { (10...40).contains($0.minutes) }) == [1, 2, 4])
        #expect(Self.ids(try all.where { !(10...40).contains($0.minutes) }) == [3, 5, 6])
        #expect(Self.ids(try all.where { (3.0..<6.0).contains($0.cost) }) == [2, 3])
        #expect(Self.ids(try all.where { ("i"..."s").contains($0.title) }) == [4, 6])  // "shop" sorts after "s"
        let day = 86_400.0
        let week = Self.start.addingTimeInterval(2 * day)...Self.start.addingTimeInterval(3 * day)
        #expect(Self.ids(try all.where { week.contains($0.due) }) == [2, 3])
        #expect(Self.ids(try all.where { (1...3).contains($0.priority) && $0.done }) == [2])
    }

    @Test func operatorResultsAreLiveAndFreeze() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let open = try db.objects(Chore.self).where { !$0.done }
        let frozen = try open.freeze()
        #expect(Self.ids(open) == [1, 3, 5])
        try db.write { try #require(try db.object(ofType: Chore.self, forPrimaryKey: 3)).done = true }
        #expect(Self.ids(open) == [1, 5])
        #expect(Self.ids(frozen) == [1, 3, 5])
        try db.write { try db.delete(try #require(try db.object(ofType: Chore.self, forPrimaryKey: 1))) }
        #expect(Self.ids(open) == [5])
    }
}
