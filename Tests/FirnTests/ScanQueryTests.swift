import Firn
import Foundation
import Testing

/// Queries evaluated on the records in place (a compiled condition, the
/// fields found in one walk, integers compared as integers) must give what
/// the same condition written in Swift gives over the objects: for every
/// operator, nulls, absent integer widths, `!`, `||`, conditions through
/// links (not compiled), in a read and inside a write transaction (whose
/// changed nodes the scan walks one entry at a time), and iterating while
/// deleting (the records kept for the iteration are not used after a change).
@Suite struct ScanQueryTests {
    struct Row {
        let id: Int, title: String, done: Bool, urgent: Bool?, priority: Int8, minutes: Int?, cost: Double, due: Date?, hasAssignee: Bool
    }

    static let start = Date(timeIntervalSinceReferenceDate: 2_000_000)

    /// 400 chores of mixed values, nulls among them, a quarter with an
    /// assignee (a Person named for the chore's id parity).
    static func open(_ scratch: Scratch, count: Int = 400) throws -> (Database, [Row]) {
        let db = try Database(configuration: scratch.configuration([Chore.self, Person.self, Dog.self]))
        var rows: [Row] = []
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        try db.write {
            let even = Person()
            even.name = "even"
            let odd = Person()
            odd.name = "odd"
            try db.add(even)
            try db.add(odd)
            for id in 0..<count {
                let chore = Chore()
                chore.id = id - 100
                chore.title = String(repeating: "t", count: next(200)) + "\(id)"
                chore.done = next(2) == 0
                chore.urgent = [true, false, nil][next(3)]
                chore.priority = Int8(next(256) - 128)
                chore.minutes = next(5) == 0 ? nil : next(1000) - 500
                chore.cost = Double(next(100)) / 4
                chore.due = next(4) == 0 ? nil : start.addingTimeInterval(Double(next(100)) * 3600)
                if id % 4 == 0 { chore.assignee = id % 8 == 0 ? even : odd }
                try db.add(chore)
                rows.append(Row(id: chore.id, title: chore.title, done: chore.done, urgent: chore.urgent, priority: chore.priority,
                                minutes: chore.minutes, cost: chore.cost, due: chore.due, hasAssignee: id % 4 == 0))
            }
        }
        return (db, rows)
    }

    typealias Case = (name: String, query: (Query<Chore>) -> QueryPredicate, swift: (Row) -> Bool)

    static var cases: [Case] { [
        ("minutes < 0", { $0.minutes < 0 }, { $0.minutes.map { $0 < 0 } ?? false }),
        ("minutes == nil", { $0.minutes == nil }, { $0.minutes == nil }),
        ("minutes != nil", { $0.minutes != nil }, { $0.minutes != nil }),
        ("minutes != 7", { $0.minutes != 7 }, { $0.minutes != 7 }),
        ("range of minutes", { (-100...100).contains($0.minutes) }, { $0.minutes.map { (-100...100).contains($0) } ?? false }),
        ("half-open range", { (-100..<100).contains($0.minutes) }, { $0.minutes.map { (-100..<100).contains($0) } ?? false }),
        ("empty range", { $0.minutes > 5 && $0.minutes < 3 }, { _ in false }),
        ("past Int.max", { $0.minutes > Int.max }, { _ in false }),
        ("below Int.min", { $0.minutes < Int.min }, { _ in false }),
        ("at most Int.max", { $0.minutes <= Int.max }, { $0.minutes != nil }),
        ("id <, another property summed", { $0.id < 37 }, { $0.id < 37 }),
        ("every id", { $0.id >= Int.min }, { _ in true }),
        ("Int8 >", { $0.priority > 10 }, { $0.priority > 10 }),
        ("Int8 ==", { $0.priority == -3 }, { $0.priority == -3 }),
        ("Int8 in", { $0.priority.in([1, 2, 3, -128]) }, { [1, 2, 3, -128].contains($0.priority) }),
        ("id <= and priority", { $0.id <= 50 && $0.priority >= 0 }, { $0.id <= 50 && $0.priority >= 0 }),
        ("or", { $0.id < -50 || $0.minutes > 400 }, { $0.id < -50 || ($0.minutes.map { $0 > 400 } ?? false) }),
        ("not", { !($0.minutes < 0) }, { !($0.minutes.map { $0 < 0 } ?? false) }),
        ("bool", { $0.done == true }, { $0.done }),
        ("optional bool", { $0.urgent == nil }, { $0.urgent == nil }),
        ("double", { $0.cost >= 12.5 }, { $0.cost >= 12.5 }),
        ("date", { $0.due < ScanQueryTests.start.addingTimeInterval(50 * 3600) },
         { $0.due.map { $0 < ScanQueryTests.start.addingTimeInterval(50 * 3600) } ?? false }),
        ("text", { $0.title.endsWith("7") }, { $0.title.hasSuffix("7") }),
        ("text and integer", { $0.title.beginsWith("ttt") && $0.minutes > 0 }, { $0.title.hasPrefix("ttt") && ($0.minutes.map { $0 > 0 } ?? false) }),
        ("through a link", { $0.assignee.name == "even" && $0.minutes > 0 }, { $0.hasAssignee && ($0.id + 100) % 8 == 0 && ($0.minutes.map { $0 > 0 } ?? false) }),
        ("no link", { $0.assignee == nil || $0.priority < 0 }, { !$0.hasAssignee || $0.priority < 0 }),
    ] }

    static func check(_ db: Database, _ rows: [Row]) throws {
        let all = db.objects(Chore.self)
        for test in Self.cases {
            let results = try all.where(test.query)
            let expected = rows.filter(test.swift)
            #expect(results.map(\.id) == expected.map(\.id).sorted(), "\(test.name)")
            #expect(results.count == expected.count, "\(test.name): count")
            #expect(try results.sum(of: \.minutes) == expected.compactMap(\.minutes).reduce(0, +), "\(test.name): sum")
            #expect(try results.sum(of: \.priority) == expected.map { Int($0.priority) }.reduce(0, +), "\(test.name): Int8 sum")
            #expect(try results.min(of: \.minutes) == expected.compactMap(\.minutes).min(), "\(test.name): min")
            #expect(try results.max(of: \.cost) == expected.map(\.cost).max(), "\(test.name): max")
            let minutes = expected.compactMap(\.minutes)
            #expect(try results.average(of: \.minutes) == (minutes.isEmpty ? nil : Double(minutes.reduce(0, +)) / Double(minutes.count)),
                    "\(test.name): average")
            let sorted = try results.sorted(by: [SortDescriptor(keyPath: \Chore.priority), SortDescriptor(keyPath: \Chore.minutes, ascending: false)])
            let expectedOrder = expected.sorted { a, b in
                if a.priority != b.priority { return a.priority < b.priority }
                // Descending with nulls last (nulls sort first ascending).
                if a.minutes != b.minutes {
                    guard let x = a.minutes else { return false }
                    guard let y = b.minutes else { return true }
                    return x > y
                }
                return a.id < b.id
            }
            #expect(sorted.map(\.id) == expectedOrder.map(\.id), "\(test.name): sorted")
        }
    }

    @Test func compiledConditionsAgreeWithSwift() throws {
        let scratch = Scratch()
        let (db, rows) = try Self.open(scratch)
        try Self.check(db, rows)
        // Objects read from a query's records, then from their keys again.
        let query = try db.objects(Chore.self).where { $0.minutes > 0 }
        let first = query.map { "\($0.id) \($0.title) \($0.minutes ?? 0)" }
        let again = query.map { "\($0.id) \($0.title) \($0.minutes ?? 0)" }
        #expect(first == again)
        #expect(first.count == rows.filter { ($0.minutes ?? 0) > 0 }.count)
    }

    @Test func insideAWriteTransaction() throws {
        let scratch = Scratch()
        let (db, rows) = try Self.open(scratch)
        try db.beginWrite()
        defer { db.cancelWrite() }
        do {
            // Change a few records so the scan walks the transaction's nodes.
            var changed = rows
            for (index, chore) in db.objects(Chore.self).enumerated() where index % 37 == 0 {
                chore.minutes = 123
                let row = changed[index]
                changed[index] = Row(id: row.id, title: row.title, done: row.done, urgent: row.urgent, priority: row.priority, minutes: 123,
                                     cost: row.cost, due: row.due, hasAssignee: row.hasAssignee)
            }
            try Self.check(db, changed)
        }
    }

    @Test func iteratingWhileDeletingSkipsTheDeleted() throws {
        let scratch = Scratch()
        let (db, rows) = try Self.open(scratch)
        let positive = try db.objects(Chore.self).where { $0.minutes > 0 }
        var seen: [Int] = []
        try db.write {
            for (index, chore) in positive.enumerated() {
                seen.append(chore.id)
                #expect((chore.minutes ?? 0) > 0)
                // Delete the next match's object: the iteration skips it.
                if index % 2 == 0, let next = try db.objects(Chore.self).where({ $0.minutes > 0 && $0.id > chore.id }).first {
                    try db.delete(next)
                }
            }
        }
        let expected = rows.filter { ($0.minutes ?? 0) > 0 }.map(\.id).sorted()
        #expect(!seen.isEmpty && seen.count < expected.count)
        #expect(Set(seen).isSubset(of: Set(expected)))
        #expect(seen == seen.sorted())
    }
}
