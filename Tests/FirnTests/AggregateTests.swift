import Firn
import Foundation
import Testing

/// `min`, `max`, `sum`, `average` and `count` over results, computed from
/// the records: nulls left out, empty results, conditions, distinct, and
/// no object made per row.
@Suite struct AggregateTests {
    static func open(_ scratch: Scratch) throws -> Database {
        let db = try Database(configuration: scratch.configuration([Chore.self, Person.self, Dog.self]))
        try QueryOperatorTests.chores(db)
        return db
    }

    @Test func overEveryObject() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let all = db.objects(Chore.self)
        #expect(try all.sum(of: \.priority) == 21)  // Int8 properties sum to Int
        #expect(try all.min(of: \.priority) == 1)
        #expect(try all.max(of: \.priority) == 6)
        #expect(try all.average(of: \.priority) == 3.5)
        #expect(try all.sum(of: \.cost) == 31.5)
        #expect(try all.max(of: \.title) == "wash")
        #expect(try all.min(of: \.title) == "cook")
        // Optionals: nulls are left out (minutes: 10, 20, 40, 50).
        #expect(try all.sum(of: \.minutes) == 120)
        #expect(try all.average(of: \.minutes) == 30)
        #expect(try all.min(of: \.minutes) == 10)
        #expect(try all.max(of: \.due) == QueryOperatorTests.start.addingTimeInterval(5 * 86_400))
        // All null: no min, no average, a sum of 0.
        #expect(try all.min(of: \.weight) == nil)
        #expect(try all.average(of: \.weight) == nil)
        #expect(try all.sum(of: \.weight) == 0)
    }

    @Test func overAQueryAndEmptyResults() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let done = try db.objects(Chore.self).where { $0.done }
        #expect(done.count == 3)
        #expect(try done.sum(of: \.priority) == 12)
        #expect(try done.average(of: \.cost) == 6)
        #expect(try done.sorted(by: \.title).min(of: \.priority) == 2)
        let none = try db.objects(Chore.self).where { $0.priority > 100 }
        #expect(none.count == 0)
        #expect(try none.sum(of: \.priority) == 0)
        #expect(try none.min(of: \.priority) == nil)
        #expect(try none.max(of: \.title) == nil)
        #expect(try none.average(of: \.cost) == nil)
        // Distinct decides which objects count.
        let oneEach = try db.objects(Chore.self).distinct(by: [\.done])
        #expect(oneEach.count == 2)
        #expect(try oneEach.sum(of: \.priority) == 3)
        // Through an index (Tagged.rank is indexed).
        let tagged = try Database(configuration: Configuration(path: scratch.path + "/tagged.firn", objectTypes: [Tagged.self]))
        try tagged.write {
            for id in 1...5 {
                let tag = Tagged()
                tag.id = id
                tag.rank = id % 2
                tag.plainRank = id
                try tagged.add(tag)
            }
        }
        let odd = try tagged.objects(Tagged.self).where { $0.rank == 1 }
        #expect(odd.count == 3)
        #expect(try odd.sum(of: \.plainRank) == 9)
    }

    @Test func liveAfterWritesAndFrozen() throws {
        let scratch = Scratch()
        let db = try Self.open(scratch)
        let open = try db.objects(Chore.self).where { !$0.done }
        let frozen = try open.freeze()
        #expect(try open.sum(of: \.priority) == 9)
        try db.write {
            try #require(try db.object(ofType: Chore.self, forPrimaryKey: 1)).done = true
            #expect(try open.sum(of: \.priority) == 8)  // inside the write
        }
        #expect(try open.sum(of: \.priority) == 8)
        #expect(open.count == 2)
        try db.write { try db.delete(try #require(try db.object(ofType: Chore.self, forPrimaryKey: 5))) }
        #expect(try open.max(of: \.priority) == 3)
        #expect(try frozen.sum(of: \.priority) == 9)
        let seen = SumBox()
        let box = Unchecked(frozen)
        useOnAnotherThread { seen.add((try? box.value.max(of: \.priority)).flatMap { $0 }.map(Int.init) ?? -1) }
        #expect(seen.values == [5])
    }

    @Test func noObjectIsMadePerRow() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Chore.self, Person.self, Dog.self]))
        try db.write {
            for id in 1...500 {
                let chore = Chore()
                chore.id = id
                chore.priority = Int8(id % 100)
                chore.done = id % 2 == 0
                try db.add(chore)
            }
        }
        let all = db.objects(Chore.self)
        let done = try all.where { $0.done }
        _ = try all.sum(of: \.priority)  // key paths learned once
        let before = Chore.made.value
        #expect(try all.sum(of: \.priority) > 0)
        #expect(try done.average(of: \.priority) != nil)
        #expect(try done.max(of: \.priority) == 98)
        #expect(done.count == 250)
        #expect(all.count == 500)
        // Other tests make chores meanwhile; a handful, never one per row.
        #expect(Chore.made.value - before < 100)
        _ = done.map(\.id)
        #expect(Chore.made.value - before >= 250)  // iterating does make them
    }

    @Test func aKeyPathThatReadsNoStoredPropertyIsATypedError() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        #expect(throws: DatabaseError.unknownProperty(type: "Tagged", property: "a key path to Int that reads no stored property")) {
            try db.objects(Tagged.self).sum(of: \.constant)
        }
    }
}
