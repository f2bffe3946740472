import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// Index trees `idx.<Type>.<property>`: kept in step with adds, changes
/// and deletes, used by equality queries, and agreeing with a scan.
@Suite struct IndexTests {
    static func tagged(_ id: Int, _ name: String, rank: Int = 0) -> Tagged {
        let object = Tagged()
        object.id = id
        object.name = name
        object.plainName = name
        object.rank = rank
        object.plainRank = rank
        return object
    }

    static func entries(_ db: Database, _ tree: String) throws -> UInt64 {
        let snapshot = try db.store.snapshot()
        defer { snapshot.close() }
        return try snapshot.tree(tree)?.count ?? 0
    }

    /// Random adds, changes, replacements and deletes; afterwards every
    /// lookup through the index finds what a scan finds, and each index
    /// holds one entry per object.
    @Test func indexLookupsAgreeWithAScan() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        var generator = SeededGenerator(seed: 4)
        let names = ["a", "b", "c", "", "a\u{0}b", String(repeating: "long", count: 80)]
        for _ in 0..<6 {
            try db.write {
                for _ in 0..<40 {
                    let id = Int(generator.next() % 30)
                    let name = names[Int(generator.next() % UInt64(names.count))]
                    let existing = try db.object(ofType: Tagged.self, forPrimaryKey: id)
                    switch generator.next() % 4 {
                    case 0 where existing != nil:
                        try db.delete(try #require(existing))
                    case 1 where existing != nil:
                        existing?.name = name
                        existing?.plainName = name
                        existing?.rank = Int(generator.next() % 3)
                        existing?.plainRank = existing?.rank ?? 0
                        existing?.flag.toggle()
                    default:
                        try db.add(Self.tagged(id, name, rank: Int(generator.next() % 3)), update: .modified)
                    }
                }
            }
        }
        let all = db.objects(Tagged.self)
        for name in names + ["absent"] {
            let indexed = try all.where { $0.name == name }.map(\.id)
            let scanned = try all.where { $0.plainName == name }.map(\.id)
            #expect(indexed == scanned, "\(name.prefix(8))")
        }
        for rank in 0..<3 {
            #expect(try all.where { $0.rank == rank && $0.flag == true }.map(\.id) == all.where { $0.plainRank == rank && $0.flag == true }.map(\.id))
        }
        let count = UInt64(all.count)
        for property in ["name", "rank", "small", "flag", "when", "tag"] {
            #expect(try Self.entries(db, "idx.Tagged.\(property)") == count, "\(property)")
        }
    }

    /// A record written without its index entry (behind the SDK's back) is
    /// found by a scan but not by an equality on the indexed property: the
    /// lookup goes through the index.
    @Test func equalityOnAnIndexedPropertyUsesTheIndex() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        try db.write { try db.add(Self.tagged(1, "seen")) }
        let transaction = try db.engineStore.beginWriteBlocking()
        let record = ObjectRecord.encode([(0, .int, .int(2)), (1, .string, .string("ghost")), (7, .string, .string("ghost"))])
        try transaction.tree("obj.Tagged")?.put(ObjectKey.encode(.int(2), as: .int) ?? [], record)
        _ = try transaction.commit()
        try db.refresh()
        let all = db.objects(Tagged.self)
        #expect(all.count == 2)
        #expect(try all.where { $0.name == "ghost" }.isEmpty)
        #expect(try all.where { $0.plainName == "ghost" }.count == 1)
        #expect(try all.where { $0.name == "seen" }.map(\.id) == [1])
        #expect(try all.where { $0.name != "seen" }.map(\.id) == [2])  // not an equality: a scan
    }

    /// `in` and bounds on an indexed integer go through the index too: the
    /// record written without its entry is missed by them (and found by the
    /// same conditions on the unindexed copy), a string range is a scan.
    @Test func inAndRangesOnAnIndexedPropertyUseTheIndex() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        try db.write { for id in 1...3 { try db.add(Self.tagged(id, "n\(id)", rank: id * 2)) } }  // ranks 2, 4, 6
        let transaction = try db.engineStore.beginWriteBlocking()
        let record = ObjectRecord.encode([(0, .int, .int(9)), (1, .string, .string("n9")), (2, .int, .int(5)), (7, .string, .string("n9")), (8, .int, .int(5))])
        try transaction.tree("obj.Tagged")?.put(ObjectKey.encode(.int(9), as: .int) ?? [], record)
        _ = try transaction.commit()
        try db.refresh()
        let all = db.objects(Tagged.self)
        #expect(try all.where { $0.rank.in([5, 2]) }.map(\.id) == [1])
        #expect(try all.where { $0.plainRank.in([5, 2]) }.map(\.id) == [1, 9])
        #expect(try all.where { (4...6).contains($0.rank) }.map(\.id) == [2, 3])
        #expect(try all.where { (4...6).contains($0.plainRank) }.map(\.id) == [2, 3, 9])
        #expect(try all.where { $0.rank > 4 }.map(\.id) == [3])
        #expect(try all.where { $0.rank < 6 && $0.rank >= 0 }.map(\.id) == [1, 2])
        #expect(try all.where { $0.rank.in([]) }.isEmpty)
        // A string range, and an `||`, are walks: the record is found.
        #expect(try all.where { ("n5"..."n9").contains($0.name) }.map(\.id) == [9])
        #expect(try all.where { $0.rank == 5 || $0.rank == 2 }.map(\.id) == [1, 9])
    }

    /// Random values, negative ones, nulls, widths and dates: `in` and
    /// ranges through the index find what the same conditions find by a
    /// walk of the records, in key order.
    @Test func inAndRangesThroughTheIndexAgreeWithAScan() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        var generator = SeededGenerator(seed: 31)
        func random(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
        let base = Date(timeIntervalSinceReferenceDate: 0)
        try db.write {
            for id in 0..<200 {
                let object = Self.tagged(id, "n\(random(9))", rank: random(41) - 20)
                object.small = random(4) == 0 ? nil : Int8(random(256) - 128)
                object.when = base.addingTimeInterval(Double(random(2001) - 1000))
                try db.add(object)
            }
        }
        let all = db.objects(Tagged.self)
        let scan = all.map { ($0.id, $0.rank, $0.small, $0.when) }
        for _ in 0..<30 {
            let a = random(41) - 20, b = random(41) - 20
            let (low, high) = (min(a, b), max(a, b))
            #expect(try all.where { (low...high).contains($0.rank) }.map(\.id) == scan.filter { (low...high).contains($0.1) }.map(\.0))
            #expect(try all.where { (low..<high).contains($0.rank) }.map(\.id) == scan.filter { (low..<high).contains($0.1) }.map(\.0))
            #expect(try all.where { $0.rank > low }.map(\.id) == scan.filter { $0.1 > low }.map(\.0))
            #expect(try all.where { $0.rank.in([a, b, 99]) }.map(\.id) == scan.filter { [a, b].contains($0.1) }.map(\.0))
            let s = Int8(random(256) - 128)
            #expect(try all.where { $0.small <= s }.map(\.id) == scan.filter { $0.2.map { $0 <= s } ?? false }.map(\.0))
            #expect(try all.where { $0.small.in([nil, s]) }.map(\.id) == scan.filter { $0.2 == nil || $0.2 == s }.map(\.0))
            let from = base.addingTimeInterval(Double(random(2001) - 1000)), span = Double(random(500))
            #expect(try all.where { (from...from.addingTimeInterval(span)).contains($0.when) }.map(\.id)
                    == scan.filter { (from...from.addingTimeInterval(span)).contains($0.3) }.map(\.0))
        }
        // A bound the property's width cannot hold leaves it to the walk.
        #expect(try all.where { $0["small"] < 1000 }.count == scan.filter { $0.2 != nil }.count)
    }

    @Test func longStringsAreFoundThroughTheirCutPrefix() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        let stem = String(repeating: "x", count: 400)
        try db.write {
            try db.add(Self.tagged(1, stem + "1"))
            try db.add(Self.tagged(2, stem + "2"))
            try db.add(Self.tagged(3, stem))
        }
        let all = db.objects(Tagged.self)
        #expect(try all.where { $0.name == stem + "2" }.map(\.id) == [2])
        #expect(try all.where { $0.name == stem }.map(\.id) == [3])
        #expect(try Self.entries(db, "idx.Tagged.name") == 3)
    }

    @Test func everyIndexedKindAndNull() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: -5)
        try db.write {
            let a = Self.tagged(1, "a")
            a.small = -3
            a.flag = true
            a.when = date
            a.tag = uuid
            try db.add(a)
            try db.add(Self.tagged(2, "b"))
        }
        let all = db.objects(Tagged.self)
        #expect(try all.where { $0.small == -3 }.map(\.id) == [1])
        #expect(try all.where { $0.small == nil }.map(\.id) == [2])
        #expect(try all.where { $0.flag == true }.map(\.id) == [1])
        #expect(try all.where { $0.when == date }.map(\.id) == [1])
        #expect(try all.where { $0.tag == uuid }.map(\.id) == [1])
        #expect(try all.where { $0.tag == nil }.map(\.id) == [2])
        try db.write { all[0].tag = nil }
        #expect(try all.where { $0.tag == nil }.map(\.id) == [1, 2])
    }

    @Test func deletingAnObjectDeletesItsEntries() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Tagged.self]))
        try db.write { for id in 0..<10 { try db.add(Self.tagged(id, "n\(id)")) } }
        #expect(try Self.entries(db, "idx.Tagged.name") == 10)
        try db.write { for tagged in db.objects(Tagged.self) where tagged.id < 7 { try db.delete(tagged) } }
        #expect(try Self.entries(db, "idx.Tagged.name") == 3)
        #expect(try db.objects(Tagged.self).where { $0.name == "n8" }.map(\.id) == [8])
    }

    @Test func anIndexOnADoubleIsAnInvalidSchema() {
        let scratch = Scratch()
        #expect(throws: DatabaseError.self) { _ = try Database(configuration: scratch.configuration([IndexedDouble.self])) }
    }
}
