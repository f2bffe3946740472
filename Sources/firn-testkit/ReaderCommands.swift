// Store commands for the multi-process tests: readers that check every
// snapshot they take, a pin holder, and a writer that increments a counter.
import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Multi-process store commands by name.
let readerCommands: [String: @Sendable ([String]) throws -> Int32] = [
    // read-check DBPATH SECONDS: takes snapshots in a loop; each must hold
    // accounts whose balances sum to the value under "total", and a "version"
    // entry equal to the snapshot's version. Prints "checked N bad M".
    "read-check": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]) else {
            return fail("usage: read-check DBPATH SECONDS")
        }
        let store = try Store.open(arguments[0], options: readOnlyExisting())
        printLine("ready")
        let deadline = monotonicSeconds() + seconds
        var checked = 0, bad = 0, versions = Set<UInt64>()
        while monotonicSeconds() < deadline {
            let snapshot = try store.snapshot(label: "read-check")
            defer { snapshot.close() }
            guard let tree = try snapshot.tree("accounts") else { continue }
            let expected = try tree.get(Array("total".utf8)).map { decodeInt($0.array) } ?? 0
            let stamped = try tree.get(Array("version".utf8)).map { decodeInt($0.array) } ?? 0
            var sum: Int64 = 0
            let cursor = tree.cursor()
            try cursor.seek(Array("acct-".utf8))
            while cursor.isValid, let key = try cursor.key, key.starts(with: Array("acct-".utf8)) {
                sum += decodeInt(try cursor.value ?? [])
                try cursor.next()
            }
            checked += 1
            versions.insert(snapshot.version)
            if sum != expected || UInt64(stamped) != snapshot.version { bad += 1 }
        }
        printLine("checked \(checked) bad \(bad) versions \(versions.count)")
        return 0
    },
    // pin-hold DBPATH SECONDS: pins the current version and prints it.
    "pin-hold": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]) else {
            return fail("usage: pin-hold DBPATH SECONDS")
        }
        let store = try Store.open(arguments[0])
        let snapshot = try store.snapshot(kind: .frozen, label: "pin-hold")
        snapshot.addFrozenObjects(3)
        printLine("pinned \(snapshot.version)")
        sleepSeconds(seconds)
        snapshot.close()
        return 0
    },
    // increment DBPATH COUNT: COUNT write transactions, each reading the
    // counter and writing it plus one.
    "increment": { arguments in
        guard arguments.count == 2, let count = Int(arguments[1]) else {
            return fail("usage: increment DBPATH COUNT")
        }
        let store = try Store.open(arguments[0])
        printLine("ready")
        for _ in 0..<count {
            let txn = try store.beginWriteBlocking(timeout: .seconds(30))
            guard let tree = try txn.tree("counter") else { return fail("no tree") }
            let value = try tree.get(Array("n".utf8)).map(decodeInt) ?? 0
            try tree.put(Array("n".utf8), encodeInt(value + 1))
            try txn.commit()
        }
        return 0
    },
]

func encodeInt(_ value: Int64) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

func decodeInt(_ bytes: [UInt8]) -> Int64 {
    guard bytes.count == 8 else { return Int64.min }
    var value: Int64 = 0
    for (i, b) in bytes.enumerated() { value |= Int64(b) << (8 * i) }
    return value
}

private func readOnlyExisting() -> StoreOptions {
    var options = StoreOptions()
    options.create = false
    return options
}

private func fail(_ text: String) -> Int32 {
    FileHandleStderr.write(text + "\n")
    return 64
}

/// Writes a line straight to fd 1, so the parent sees it at once.
func printLine(_ text: String) { writeLine(text) }

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func sleepSeconds(_ seconds: Double) {
    SystemCall.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
}
