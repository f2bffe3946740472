import Firn

/// The query rows on the Firn SDK, as an application writes them: `where`
/// closures, `(a...b).contains`, `sorted(by: [SortDescriptor])`, `count`
/// and `sum(of:)` on live results of a thread-bound `Database`.
final class FirnSDKQueryPeer: QueryPeer {
    static let name = "firn"

    final class Entry: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var group = 0
        @Persisted var value = 0
    }

    private var db: Database?

    init(path: String) throws {
        db = try Database(configuration: Configuration(path: path, objectTypes: [Entry.self]))
    }

    private var open: Database {
        get throws {
            guard let db else { throw EngineError(description: "firn: closed") }
            return db
        }
    }

    func create(_ items: QueryItems) throws {
        let db = try open
        try db.write {
            for i in 0..<items.count {
                let entry = Entry()
                entry.id = i
                entry.name = items.names[i]
                entry.group = items.group(i)
                entry.value = items.values[i]
                try db.add(entry)
            }
        }
    }

    func indexedEquality(_ groups: [Int]) throws -> (count: Int, sum: Int) {
        let entries = try open.objects(Entry.self)
        var count = 0, sum = 0
        for group in groups {
            for entry in try entries.where({ $0.group == group }) {
                count += 1
                sum &+= entry.value
            }
        }
        return (count, sum)
    }

    func unindexedRange(_ ranges: [ClosedRange<Int>]) throws -> (count: Int, sum: Int) {
        let entries = try open.objects(Entry.self)
        var count = 0, sum = 0
        for range in ranges {
            for entry in try entries.where({ range.contains($0.value) }) {
                count += 1
                sum &+= entry.value
            }
        }
        return (count, sum)
    }

    func sortedByTwoKeys() throws -> (count: Int, checksum: Int) {
        let sorted = try open.objects(Entry.self).sorted(by: [SortDescriptor(keyPath: \Entry.group),
                                                              SortDescriptor(keyPath: \Entry.value, ascending: false)])
        var count = 0
        let checksum = QueryItems.checksum(sorted.lazy.map { entry in count += 1; return entry.value })
        return (count, checksum)
    }

    func count(valueBelow limit: Int) throws -> Int {
        try open.objects(Entry.self).where { $0.value < limit }.count
    }

    func sumOfValues() throws -> Int {
        try open.objects(Entry.self).sum(of: \.value)
    }

    func close() { db = nil }
}
