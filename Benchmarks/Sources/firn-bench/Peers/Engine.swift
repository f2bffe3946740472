/// What every key-value contender does for the workloads: the same
/// operations on Firn, LMDB and SQLite, each through its own native API.
protocol Engine: AnyObject {
    static var name: String { get }
    /// Opens (creating when missing) the database at `path`. `durable`:
    /// commits survive power loss (Firn .full, LMDB default sync, SQLite
    /// WAL + synchronous=FULL); otherwise no syncs (Firn .none, MDB_NOSYNC,
    /// synchronous=OFF).
    init(path: String, durable: Bool) throws
    /// Puts records `range` in one write transaction, in index order
    /// (random key order: the keys are random).
    func load(_ ds: Dataset, _ range: Range<Int>) throws
    /// Puts each record of `range` in a transaction of its own.
    func putEach(_ ds: Dataset, _ range: Range<Int>) throws
    /// Point-reads the keys of `order` in one snapshot; returns how many were found.
    func readAll(_ ds: Dataset, order: [Int32]) throws -> Int
    /// One full ordered scan; returns the records seen.
    func scan() throws -> Int
    func close()
}

/// The contenders of pinned growth: a long-lived reader while small
/// transactions overwrite existing records.
protocol PinningEngine: Engine {
    /// Starts a read snapshot that stays open until `unpin`.
    func pin() throws
    func unpin()
    /// Overwrites the records `indices` in one write transaction with
    /// values that differ from the stored ones (first byte set to `round`).
    func overwrite(_ ds: Dataset, _ indices: ArraySlice<Int32>, round: Int) throws
}

struct EngineError: Error, CustomStringConvertible {
    let description: String
}
