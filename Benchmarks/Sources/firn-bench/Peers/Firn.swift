import FirnCore

/// Firn through its public FirnCore API: one named tree "kv".
final class FirnEngine: PinningEngine {
    static let name = "firn"
    let store: Store
    private var pinned: Snapshot?

    init(path: String, durable: Bool) throws {
        var options = StoreOptions()
        options.durability = durable ? .full : .none
        store = try Store.open(path, options: options)
    }

    /// Opens with an explicit durability and an I/O wrapper (the commit
    /// row counts pages and syncs, and measures `.twoPhase` too).
    init(path: String, durability: Durability, wrapIO: (@Sendable (any FileIO) -> any FileIO)?,
         pageCommits: Bool = false) throws {
        var options = StoreOptions()
        options.durability = durability
        options.wrapIO = wrapIO
        // The commit log is the default; page commits are measured beside it.
        if pageCommits { options.commitLogPages = 0 }
        store = try Store.open(path, options: options)
    }

    func load(_ ds: Dataset, _ range: Range<Int>) throws {
        try store.write { txn in
            guard let tree = try txn.tree("kv") else { throw EngineError(description: "no tree") }
            for i in range { try tree.put(Array(ds.key(i)), Array(ds.value(i))) }
        }
    }

    func putEach(_ ds: Dataset, _ range: Range<Int>) throws {
        for i in range {
            try store.write { txn in
                guard let tree = try txn.tree("kv") else { throw EngineError(description: "no tree") }
                try tree.put(Array(ds.key(i)), Array(ds.value(i)))
            }
        }
    }

    func readAll(_ ds: Dataset, order: [Int32]) throws -> Int {
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        guard let tree = try snapshot.tree("kv") else { return 0 }
        var found = 0
        var sum = 0
        for i in order {
            if let v = try tree.get(ds.key(Int(i))) {
                found += 1
                sum &+= Int(v.bytes[0])
            }
        }
        blackHole(sum)
        return found
    }

    func scan() throws -> Int {
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        guard let tree = try snapshot.tree("kv") else { return 0 }
        let cursor = tree.cursor()
        var n = 0
        var sum = 0
        try cursor.first()
        while cursor.isValid {
            sum &+= try cursor.withInlineValue { Int($0[0]) } ?? 0
            n += 1
            try cursor.next()
        }
        blackHole(sum)
        return n
    }

    func pin() throws { pinned = try store.snapshot(kind: .read, label: "bench pinned growth") }

    func unpin() {
        pinned?.close()
        pinned = nil
    }

    func overwrite(_ ds: Dataset, _ indices: ArraySlice<Int32>, round: Int) throws {
        try store.write { txn in
            guard let tree = try txn.tree("kv") else { throw EngineError(description: "no tree") }
            for i in indices {
                var value = Array(ds.value(Int(i)))
                value[0] = UInt8(truncatingIfNeeded: round)
                try tree.put(Array(ds.key(Int(i))), value)
            }
        }
    }

    func close() {
        unpin()
        store.close()
    }
}

/// Firn on page commits (`commitLogPages` 0): pinned growth reports it
/// beside the commit log, the default.
final class FirnPageCommitsEngine: PinningEngine {
    static let name = "firn-pages"
    private let engine: FirnEngine

    init(path: String, durable: Bool) throws {
        engine = try FirnEngine(path: path, durability: durable ? .full : .none, wrapIO: nil, pageCommits: true)
    }

    func load(_ ds: Dataset, _ range: Range<Int>) throws { try engine.load(ds, range) }
    func putEach(_ ds: Dataset, _ range: Range<Int>) throws { try engine.putEach(ds, range) }
    func readAll(_ ds: Dataset, order: [Int32]) throws -> Int { try engine.readAll(ds, order: order) }
    func scan() throws -> Int { try engine.scan() }
    func pin() throws { try engine.pin() }
    func unpin() { engine.unpin() }
    func overwrite(_ ds: Dataset, _ indices: ArraySlice<Int32>, round: Int) throws {
        try engine.overwrite(ds, indices, round: round)
    }
    func close() { engine.close() }
}
