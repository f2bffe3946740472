import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// Several processes on one database: readers in other processes see
/// consistent snapshots while a writer commits, a killed process's pin is
/// reclaimed, and writers in two processes serialize.
@Suite(.serialized) struct MultiProcessStoreTests {
    static func seedAccounts(_ store: Store, count: Int) throws {
        try store.write { txn in
            let tree = try #require(try txn.tree("accounts"))
            for i in 0..<count { try tree.put(Array("acct-\(i)".utf8), encodeTestInt(100)) }
            try tree.put(Array("total".utf8), encodeTestInt(Int64(count) * 100))
            try tree.put(Array("version".utf8), encodeTestInt(Int64(txn.version)))
        }
    }

    @Test func readersInOtherProcessesSeeConsistentSnapshotsWhileAWriterCommits() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("shared.firn")
        let store = try Store.open(path, options: .pageCommits)
        try Self.seedAccounts(store, count: 300)
        let readers = try (0..<2).map { _ in try ChildProcess.testkit(["read-check", path, "3"]) }
        for reader in readers { #expect(reader.waitUntilReady()) }
        var rng = SeededGenerator(seed: 9)
        var commits = 0
        // Commits for 3 s and on while any reader still checks: each reader
        // checks for 3 s from its own start, and on a loaded machine the
        // second may start long after the first (the writer must overlap
        // both), or a commit's fsync may take long. Bounded for a failing test.
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(3)
                || readers.contains(where: { $0.isRunning }) && ContinuousClock.now - started < .seconds(60) {
            try store.write { txn in
                let tree = try #require(try txn.tree("accounts"))
                // Move money between accounts and add some: the total moves too.
                for _ in 0..<5 {
                    let from = Array("acct-\(rng.next() % 300)".utf8), to = Array("acct-\(rng.next() % 300)".utf8)
                    let amount = Int64(rng.next() % 50)
                    try tree.put(from, encodeTestInt(decodeTestInt(try tree.get(from) ?? []) - amount))
                    try tree.put(to, encodeTestInt(decodeTestInt(try tree.get(to) ?? []) + amount + 1))
                    try tree.put(Array("total".utf8), encodeTestInt(decodeTestInt(try tree.get(Array("total".utf8)) ?? []) + 1))
                }
                try tree.put(Array("version".utf8), encodeTestInt(Int64(txn.version)))
            }
            commits += 1
        }
        for reader in readers {
            let line = try #require(reader.readLine(timeout: .seconds(20)), "reader said nothing: \(reader.errorOutput())")
            let words = line.split(separator: " ")
            #expect(words.count == 6 && words[0] == "checked", "\(line)")
            let checked = Int(words[1]) ?? 0, bad = Int(words[3]) ?? -1, versions = Int(words[5]) ?? 0
            #expect(checked > 10, "\(line)")
            #expect(bad == 0, "\(line)")
            #expect(versions > 1, "readers saw the writer's commits: \(line)")
            #expect(reader.waitForExit(timeout: .seconds(10)) == 0)
        }
        #expect(commits > 10)
    }

    @Test func aKilledProcessPinIsReclaimedAndItsPagesFreed() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pins.firn")
        var options = StoreOptions.pageCommits
        options.durability = .none
        let store = try Store.open(path, options: options)
        try Self.seedAccounts(store, count: 2000)
        let holder = try ChildProcess.testkit(["pin-hold", path, "60"])
        let line = try #require(holder.readLine(timeout: .seconds(20)), "\(holder.errorOutput())")
        let pinned = try #require(UInt64(line.split(separator: " ").last ?? ""))
        let lock = try #require(store.lockFile)
        #expect(lock.pins().contains { $0.pid == holder.pid && $0.version == pinned && $0.kind == .frozen && $0.frozenObjects == 3 })
        for round in 0..<30 {
            try store.write { txn in
                let tree = try #require(try txn.tree("accounts"))
                for i in 0..<100 { try tree.put(Array("acct-\((round * 100 + i) % 2000)".utf8), encodeTestInt(Int64(round))) }
            }
        }
        let held = try store.snapshot().spaceUsage(pinnedVersions: lock.livePinnedVersions())
        #expect(held.retainedBytes(byPinAt: pinned) > 0)
        holder.kill(SIGKILL)
        holder.waitForExit(timeout: .seconds(10))
        #expect(!lock.livePinnedVersions().contains(pinned))
        // Two commits: the first reclaims the dead pin's pages, which the
        // second can then report as free.
        for _ in 0..<2 {
            try store.write { txn in try #require(try txn.tree("accounts")).put(Array("acct-0".utf8), encodeTestInt(1)) }
        }
        let snapshot = try store.snapshot()
        let after = try snapshot.spaceUsage(pinnedVersions: lock.livePinnedVersions())
        #expect(after.heldByPinsPages == 0)
        #expect(after.freePages >= held.retainedByPin[pinned] ?? 0)
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
        #expect(!lock.pins().contains { $0.pid == holder.pid })
    }

    @Test func writersInTwoProcessesSerialize() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("counter.firn")
        let store = try Store.open(path, options: .pageCommits)
        let writers = try (0..<2).map { _ in try ChildProcess.testkit(["increment", path, "150"]) }
        for writer in writers { #expect(writer.waitUntilReady()) }
        for writer in writers { #expect(writer.waitForExit(timeout: .seconds(120)) == 0, "\(writer.errorOutput())") }
        let value = try store.snapshot().tree("counter")?.get(Array("n".utf8))?.array
        #expect(value.map(decodeTestInt) == 300)
    }
}

func encodeTestInt(_ value: Int64) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

func decodeTestInt(_ bytes: [UInt8]) -> Int64 {
    guard bytes.count == 8 else { return Int64.min }
    var value: Int64 = 0
    for (i, b) in bytes.enumerated() { value |= Int64(b) << (8 * i) }
    return value
}
