#if canImport(Glibc)
import Glibc
#endif
@testable import FirnCore
import FirnTestSupport

/// The ledger workload of the crash tests and its model: 200 accounts whose
/// balances always sum to the same total, plus "filler" values of varying
/// sizes (some in overflow chains) that are put and deleted along the way.
/// Byte formats match `LedgerFormat` in `Sources/firn-testkit/StoreCommands.swift`
/// (the child process of the kill tests writes them):
///
/// - "accounts": key = account number, 8 bytes big-endian; value = 32 bytes:
///   balance (u64 LE), account number (u64 LE), 16 bytes `0xA5`.
/// - "filler": key = "f" + number (u32 big-endian); value = length (u32 LE),
///   salt (u32 LE), then byte i = low byte of `salt &+ i &* 131`.
///
/// `Contents` is a whole version as a dictionary (tree → key → value), the
/// model a recovered file is compared against byte for byte.
enum LedgerModel {
    typealias Contents = [String: [[UInt8]: [UInt8]]]

    static let accountsTree = "accounts"
    static let fillerTree = "filler"
    static let accountCount: UInt64 = 200
    static let initialBalance: UInt64 = 1000
    static var total: UInt64 { accountCount * initialBalance }
    static let fillerKeyCount: UInt64 = 48
    static let fillerSizes = [0, 40, 700, 2000, 3900, 4500, 9000, 17000]

    static func accountKey(_ n: UInt64) -> [UInt8] {
        withUnsafeBytes(of: n.bigEndian) { Array($0) }
    }

    static func accountValue(_ n: UInt64, balance: UInt64) -> [UInt8] {
        littleEndian(balance) + littleEndian(n) + [UInt8](repeating: 0xA5, count: 16)
    }

    static func fillerKey(_ n: UInt64) -> [UInt8] {
        [UInt8(ascii: "f")] + withUnsafeBytes(of: UInt32(truncatingIfNeeded: n).bigEndian) { Array($0) }
    }

    static func fillerValue(size: Int, salt: UInt32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8 + size)
        bytes.withUnsafeMutableBytes { out in
            out.storeBytes(of: (UInt64(UInt32(size)) | UInt64(salt) << 32).littleEndian, toByteOffset: 0, as: UInt64.self)
            for i in 0..<size { out[8 + i] = UInt8(truncatingIfNeeded: salt &+ UInt32(truncatingIfNeeded: i) &* 131) }
        }
        return bytes
    }

    /// True when `value` is a filler value as `fillerValue` makes them.
    static func isWellFormedFiller(_ value: [UInt8]) -> Bool {
        value.withUnsafeBytes { bytes in
            guard bytes.count >= 8 else { return false }
            let header = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            let size = Int(header & 0xFFFF_FFFF), salt = UInt32(header >> 32)
            guard bytes.count == 8 + size else { return false }
            for i in 0..<size where bytes[8 + i] != UInt8(truncatingIfNeeded: salt &+ UInt32(truncatingIfNeeded: i) &* 131) {
                return false
            }
            return true
        }
    }

    /// The accounts as first committed.
    static func initialContents() -> Contents {
        var accounts: [[UInt8]: [UInt8]] = [:]
        for n in 0..<accountCount { accounts[accountKey(n)] = accountValue(n, balance: initialBalance) }
        return [accountsTree: accounts]
    }

    /// Creates the file at `path` and commits the initial accounts; returns
    /// the version and its contents.
    @discardableResult
    static func createStore(at path: String, options: StoreOptions = .pageCommits) throws -> (version: UInt64, contents: Contents) {
        let store = try Store.open(path, options: options)
        defer { store.close() }
        let contents = initialContents()
        let txn = try store.beginWriteBlocking()
        // In key order: dictionary order differs between instances, and the tree's
        // shape (so the count of page writes a fault test enumerates) would with it.
        for (name, entries) in contents.sorted(by: { $0.key < $1.key }) {
            guard let tree = try txn.tree(name) else { throw LedgerFailure("cannot create tree \(name)") }
            for (key, value) in entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) { try tree.put(key, value) }
        }
        return (try txn.commit(), contents)
    }

    /// Stages one commit's changes in `txn` and in `contents`: a random
    /// amount moves between two random accounts, and a few filler values are
    /// put or deleted.
    static func stageRandomChanges(_ txn: WriteTransaction, _ contents: inout Contents, _ rng: inout SeededGenerator) throws {
        try stage(txn, &contents, &rng, fillers: { Int($0.below(4)) }, deletingOneIn: 3, sizes: fillerSizes)
    }

    /// Stages a ledger transfer and `fillers` filler changes (one in four
    /// a delete) with sizes from `sizes`, in `txn` and in `contents`.
    static func stageTransfer(_ txn: WriteTransaction, _ contents: inout Contents, _ rng: inout SeededGenerator,
                              fillers: Int, sizes: [Int]) throws {
        try stage(txn, &contents, &rng, fillers: { _ in fillers }, deletingOneIn: 4, sizes: sizes)
    }

    /// A transfer, then `fillers` (drawn after it) filler changes.
    private static func stage(_ txn: WriteTransaction, _ contents: inout Contents, _ rng: inout SeededGenerator,
                              fillers: (inout SeededGenerator) -> Int, deletingOneIn odds: UInt64, sizes: [Int]) throws {
        guard let accounts = try txn.tree(accountsTree, create: false), let filler = try txn.tree(fillerTree) else {
            throw LedgerFailure("the accounts tree is missing")
        }
        if contents[fillerTree] == nil { contents[fillerTree] = [:] }
        let from = rng.below(accountCount)
        let to = (from + 1 + rng.below(accountCount - 1)) % accountCount
        guard let fromBalance = contents[accountsTree]?[accountKey(from)].flatMap(balance),
              let toBalance = contents[accountsTree]?[accountKey(to)].flatMap(balance) else {
            throw LedgerFailure("the model lost account \(from) or \(to)")
        }
        let amount = fromBalance == 0 ? 0 : 1 + rng.below(fromBalance)
        for (n, newBalance) in [(from, fromBalance - amount), (to, toBalance + amount)] {
            let value = accountValue(n, balance: newBalance)
            try accounts.put(accountKey(n), value)
            contents[accountsTree]?[accountKey(n)] = value
        }
        for _ in 0..<fillers(&rng) {
            let key = fillerKey(rng.below(fillerKeyCount))
            if rng.chance(1, in: odds) {
                try filler.delete(key)
                contents[fillerTree]?[key] = nil
            } else {
                let size = sizes[Int(rng.below(UInt64(sizes.count)))]
                let value = fillerValue(size: size, salt: UInt32(truncatingIfNeeded: rng.next()))
                try filler.put(key, value)
                contents[fillerTree]?[key] = value
            }
        }
    }

    static func balance(_ value: [UInt8]) -> UInt64? {
        guard value.count == 32 else { return nil }
        return value.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) }
    }

    /// Whether two versions hold the same trees, keys and values. (Compares
    /// values with memcmp: `==` on byte arrays is slow in debug builds.)
    static func same(_ a: Contents, _ b: Contents) -> Bool {
        guard a.count == b.count else { return false }
        for (name, entries) in a {
            guard let other = b[name], other.count == entries.count else { return false }
            for (key, value) in entries {
                guard let otherValue = other[key], otherValue.count == value.count else { return false }
                let equal = value.withUnsafeBytes { x in
                    otherValue.withUnsafeBytes { y in
                        guard let xs = x.baseAddress, let ys = y.baseAddress else { return x.count == y.count }
                        return memcmp(xs, ys, x.count) == 0
                    }
                }
                if !equal { return false }
            }
        }
        return true
    }

    /// What is wrong with `contents` as a state of the ledger: accounts
    /// missing or malformed, a total that changed, filler values that are not
    /// what was written. Empty when the invariant holds.
    static func problems(in contents: Contents) -> [String] {
        var problems: [String] = []
        guard let accounts = contents[accountsTree] else { return ["no \"\(accountsTree)\" tree"] }
        if UInt64(accounts.count) != accountCount {
            problems.append("\(accounts.count) accounts instead of \(accountCount)")
        }
        var sum: UInt64 = 0
        for n in 0..<accountCount {
            guard let value = accounts[accountKey(n)] else {
                problems.append("account \(n) is missing")
                continue
            }
            guard let balance = balance(value), value == accountValue(n, balance: balance) else {
                problems.append("account \(n) holds a malformed value of \(value.count) bytes")
                continue
            }
            sum &+= balance
        }
        if sum != total { problems.append("the balances sum to \(sum), not \(total)") }
        for (key, value) in contents[fillerTree] ?? [:] {
            if !isWellFormedFiller(value) { problems.append("filler \(key) (\(value.count) bytes) does not match its header") }
        }
        let unexpected = Set(contents.keys).subtracting([accountsTree, fillerTree])
        if !unexpected.isEmpty { problems.append("unexpected trees \(unexpected.sorted())") }
        return problems
    }

    private static func littleEndian(_ x: UInt64) -> [UInt8] {
        withUnsafeBytes(of: x.littleEndian) { Array($0) }
    }
}

/// A workload step that could not be carried out.
struct LedgerFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
