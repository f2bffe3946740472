/// What the SDK rows do with an object database: the same operations on
/// the Firn SDK and on GRDB, each through its own idiomatic API, on records
/// of one shape (Int primary key, String, Int). One file per library, so
/// that their like-named types (`Database`, `Configuration`) never meet.
protocol ObjectPeer: AnyObject {
    static var name: String { get }
    /// Opens (creating when missing) the database at `path`, schema ready.
    init(path: String) throws
    /// Stores `items` as new objects in one write transaction.
    func create(_ items: SDKItems) throws
    /// Gets each primary key of `order` in one read snapshot and reads the
    /// object's `value`; returns how many were found and the values' sum.
    func get(_ order: [Int]) throws -> (found: Int, sum: Int)
    /// Iterates every object in one read snapshot reading `value`.
    func iterate() throws -> (count: Int, sum: Int)
    func close()
}

/// The objects the SDK rows create: ids 0..<count in order, a name of
/// 10 to 13 bytes (a Swift small string: no allocation) and an Int,
/// generated before any clock starts.
final class SDKItems {
    let count: Int
    let names: [String]
    let values: [Int]

    init(count: Int) {
        self.count = count
        var rng = SplitMix64(seed: 0x5D_0001)
        names = (0..<count).map { "item \($0)" }
        values = (0..<count).map { _ in Int(rng.next() % 1_000_000) }
    }

    /// The sum of every value, what iterate must find.
    var valueSum: Int { values.reduce(0, &+) }

    /// Every id once, in a fixed random order.
    func shuffledIDs(seed: UInt64) -> [Int] {
        var order = Array(0..<count)
        var rng = SplitMix64(seed: seed)
        var i = order.count - 1
        while i > 0 {
            order.swapAt(i, Int(rng.next() % UInt64(i + 1)))
            i -= 1
        }
        return order
    }
}
