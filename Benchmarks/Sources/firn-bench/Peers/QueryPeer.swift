/// What the SDK query rows do with an object database: the same queries on
/// the Firn SDK and on GRDB, each through its own idiomatic API, on records
/// of one shape (Int primary key, String, an indexed Int `group`, an Int
/// `value`). One file per library, as for `ObjectPeer`.
protocol QueryPeer: AnyObject {
    static var name: String { get }
    /// Opens (creating when missing) the database at `path`, schema ready.
    init(path: String) throws
    /// Stores `items` as new objects in one write transaction.
    func create(_ items: QueryItems) throws
    /// For each of `groups`: the objects whose (indexed) `group` equals it,
    /// each read for its `value`. Returns the objects read and their sum.
    func indexedEquality(_ groups: [Int]) throws -> (count: Int, sum: Int)
    /// For each range: the objects whose (unindexed) `value` lies in it,
    /// each read for its `value`.
    func unindexedRange(_ ranges: [ClosedRange<Int>]) throws -> (count: Int, sum: Int)
    /// Every object ordered by `group`, then `value` descending, each read
    /// for its `value`: the count and a checksum that depends on the order.
    func sortedByTwoKeys() throws -> (count: Int, checksum: Int)
    /// How many objects have a `value` below `limit`.
    func count(valueBelow limit: Int) throws -> Int
    /// The sum of every object's `value`.
    func sumOfValues() throws -> Int
    func close()
}

/// The objects the query rows create: ids 0..<count, `group` = id % 1000
/// (1,000 objects a group for a million), values pseudo-random below a
/// million; generated before any clock starts.
final class QueryItems {
    static let groups = 1000
    let count: Int
    let names: [String]
    let values: [Int]

    init(count: Int) {
        self.count = count
        var rng = SplitMix64(seed: 0x5D_0002)
        names = (0..<count).map { "item \($0)" }
        values = (0..<count).map { _ in Int(rng.next() % 1_000_000) }
    }

    func group(_ id: Int) -> Int { id % Self.groups }

    /// What each query must find, computed from the items themselves.
    func expectedEquality(_ groups: [Int]) -> (count: Int, sum: Int) {
        var count = 0, sum = 0
        for id in 0..<self.count where groups.contains(group(id)) { count += 1; sum &+= values[id] }
        return (count, sum)
    }

    func expectedRange(_ ranges: [ClosedRange<Int>]) -> (count: Int, sum: Int) {
        var count = 0, sum = 0
        for range in ranges { for value in values where range.contains(value) { count += 1; sum &+= value } }
        return (count, sum)
    }

    func expectedSorted() -> (count: Int, checksum: Int) {
        let order = (0..<count).sorted { a, b in
            group(a) != group(b) ? group(a) < group(b) : values[a] != values[b] ? values[a] > values[b] : a < b
        }
        return (count, Self.checksum(order.lazy.map { self.values[$0] }))
    }

    /// A sum that depends on the order of `values` (position × value).
    static func checksum<S: Sequence<Int>>(_ values: S) -> Int {
        var sum = 0, position = 0
        for value in values { position += 1; sum &+= position &* value }
        return sum
    }
}
