// Store commands: each opens a database with FirnCore and works on it, so a
// test can kill the process at any moment and check what the file holds.
import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Store commands by name.
let storeCommands: [String: @Sendable ([String]) throws -> Int32] = [
    // commit-loop DBPATH SEED: opens DBPATH (durability full; it must hold the
    // "accounts" tree, see `LedgerFormat`), prints "ready", then commits
    // forever. Each commit moves a random amount between two random accounts
    // (the total stays constant) and puts or deletes a few "filler" values of
    // varying sizes, some in overflow chains; it keeps a snapshot pinned,
    // renewed every few commits. After each commit returns it
    // writes the committed version as a line on stdout: every version printed
    // is acknowledged and must survive the process being killed.
    "commit-loop": { arguments in
        guard arguments.count == 2, let seed = UInt64(arguments[1]) else {
            return usageError("commit-loop DBPATH SEED")
        }
        var options = StoreOptions()
        options.create = false
        options.durability = .full
        // Page commits: the log's kill test is `log-loop`.
        options.commitLogPages = 0
        var rng = TestkitGenerator(state: seed)
        let store = try openLoop(arguments[0], options)
        var pin = RenewedPin(label: "commit-loop")
        while true {
            try pin.renewIfDue(store, &rng)
            let txn = try store.beginWriteBlocking()
            guard let accounts = try txn.tree(LedgerFormat.accountsTree, create: false),
                  let filler = try txn.tree(LedgerFormat.fillerTree) else {
                FileHandleStderr.write("commit-loop: the store has no \"\(LedgerFormat.accountsTree)\" tree\n")
                txn.abort()
                return 65
            }
            if let problem = try LedgerFormat.transfer(in: accounts, rng: &rng) {
                FileHandleStderr.write("commit-loop: \(problem)\n")
                txn.abort()
                return 65
            }
            try LedgerFormat.changeFiller(filler, times: Int(rng.next() % 4), rng: &rng)
            let version = try txn.commit()
            writeLine("\(version)")
            pin.committed()
        }
    },
]

/// The byte formats of the ledger workload. `Tests/FirnCoreTests/Support/
/// LedgerModel.swift` reads and checks the same formats; keep them in step.
///
/// - "accounts": key = account number, 8 bytes big-endian; value = 32 bytes:
///   balance (u64 LE), account number (u64 LE), 16 bytes `0xA5`.
/// - "filler": key = "f" + number (u32 big-endian); value = length (u32 LE),
///   salt (u32 LE), then byte i = low byte of `salt &+ i &* 131`.
enum LedgerFormat {
    /// Moves a random amount between two random accounts; the reason when
    /// an account is missing or malformed (nothing changed then).
    static func transfer(in accounts: WriteTree, rng: inout TestkitGenerator) throws -> String? {
        let from = rng.next() % accountCount
        let to = (from + 1 + rng.next() % (accountCount - 1)) % accountCount
        guard let fromValue = try accounts.get(accountKey(from)), let toValue = try accounts.get(accountKey(to)),
              let fromBalance = balance(fromValue), let toBalance = balance(toValue) else {
            return "account \(from) or \(to) is missing or malformed"
        }
        let amount = fromBalance == 0 ? 0 : 1 + rng.next() % fromBalance
        try accounts.put(accountKey(from), accountValue(from, balance: fromBalance - amount))
        try accounts.put(accountKey(to), accountValue(to, balance: toBalance + amount))
        return nil
    }

    /// Puts or deletes `times` random filler values.
    static func changeFiller(_ filler: WriteTree, times: Int, rng: inout TestkitGenerator) throws {
        for _ in 0..<times {
            let key = fillerKey(rng.next() % fillerKeyCount)
            if rng.next() % 3 == 0 {
                try filler.delete(key)
            } else {
                let size = fillerSizes[Int(rng.next() % UInt64(fillerSizes.count))]
                try filler.put(key, fillerValue(size: size, salt: UInt32(truncatingIfNeeded: rng.next())))
            }
        }
    }

    static let accountsTree = "accounts"
    static let fillerTree = "filler"
    static let accountCount: UInt64 = 200
    static let fillerKeyCount: UInt64 = 48
    static let fillerSizes = [0, 40, 700, 2000, 3900, 4500, 9000, 17000]

    static func accountKey(_ n: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: n >> (56 - 8 * UInt64($0))) }
    }

    static func accountValue(_ n: UInt64, balance: UInt64) -> [UInt8] {
        littleEndian(balance) + littleEndian(n) + [UInt8](repeating: 0xA5, count: 16)
    }

    static func balance(_ value: [UInt8]) -> UInt64? {
        guard value.count == 32 else { return nil }
        return value[0..<8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func fillerKey(_ n: UInt64) -> [UInt8] {
        [UInt8(ascii: "f")] + (0..<4).map { UInt8(truncatingIfNeeded: n >> (24 - 8 * UInt64($0))) }
    }

    static func fillerValue(size: Int, salt: UInt32) -> [UInt8] {
        var bytes = Array(littleEndian(UInt64(UInt32(size)) | UInt64(salt) << 32))
        bytes.reserveCapacity(8 + size)
        for i in 0..<size { bytes.append(UInt8(truncatingIfNeeded: salt &+ UInt32(truncatingIfNeeded: i) &* 131)) }
        return bytes
    }

    private static func littleEndian(_ x: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: x >> (8 * UInt64($0))) }
    }
}

/// SplitMix64: a small seeded generator, so a failing seed can be replayed.
struct TestkitGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}


