import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// The engine's API as an application uses it: ranges, limits, the writer
/// lock's timeout and try variant, notifications, read-only stores.
@Suite struct StoreAPITests {
    static func key(_ i: Int) -> [UInt8] { Array(("key-" + String(repeating: "0", count: max(0, 5 - String(i).count)) + String(i)).utf8) }

    @Test func rangesVisitExactlyTheKeysInTheHalfOpenInterval() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("range.firn"))
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<1000 { try tree.put(Self.key(i), Array("v\(i)".utf8)) }
            #expect(try tree.entries(from: Self.key(10), upTo: Self.key(20)).map(\.key) == (10..<20).map(Self.key))
            #expect(try tree.entries(from: Self.key(995)).count == 5)
            #expect(try tree.entries(limit: 3).map(\.key) == (0..<3).map(Self.key))
        }
        let tree = try #require(try store.snapshot().tree("t"))
        var seen: [[UInt8]] = []
        try tree.forEach(from: Self.key(500), upTo: Self.key(700)) { key, value in
            seen.append(Array(key))
            #expect(value.array == Array("v\(500 + seen.count - 1)".utf8))
            return true
        }
        #expect(seen == (500..<700).map(Self.key))
        var stoppedAfter = 0
        try tree.forEach { _, _ in stoppedAfter += 1; return stoppedAfter < 7 }
        #expect(stoppedAfter == 7)
    }

    @Test func keysLongerThanAQuarterPageAreRejectedAndAKiBKeyWorks() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("keys.firn"))
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            let long = [UInt8](repeating: 7, count: 1024)
            try tree.put(long, [1])
            #expect(try tree.get(long) == [1])
            #expect(throws: FirnError.self) { try tree.put([UInt8](repeating: 1, count: 1025), [1]) }
        }
    }

    @Test func secondWriterTimesOutAndTryWriteReturnsNil() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("writers.firn")
        let store = try Store.open(path)
        let other = try Store.open(path)
        let txn = try store.beginWriteBlocking()
        let waiter = BackgroundThread {
            let start = ContinuousClock.now
            do {
                _ = try other.beginWriteBlocking(timeout: .milliseconds(200))
                return "acquired"
            } catch let error as FirnError {
                guard case .busy = error else { return "wrong error \(error)" }
                // Far above the 0.2 s timeout: scheduling delays pass.
                return ContinuousClock.now - start < .seconds(5) ? "busy" : "slow"
            } catch { return "\(error)" }
        }
        #expect(waiter.join(timeout: .seconds(30)) == "busy")
        let tryer = BackgroundThread { (try? other.tryBeginWrite()) == nil ? "nil" : "acquired" }
        #expect(tryer.join(timeout: .seconds(30)) == "nil")
        txn.abort()
    }

    @Test func waitForCommitWakesWhenAnotherHandleCommits() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notify.firn")
        let store = try Store.open(path)
        let start = try store.currentVersion
        let other = try Store.open(path)
        let waiter = BackgroundThread { () -> String in
            (try? store.waitForCommit(after: start, timeout: .seconds(10))).map { "\($0)" } ?? "error"
        }
        try other.write { txn in try #require(try txn.tree("t")).put([1], [2]) }
        #expect(waiter.join(timeout: .seconds(30)) == "\(start + 1)")
        #expect(try store.waitForCommit(after: start + 1, timeout: .milliseconds(50)) == start + 1)
    }

    @Test func readOnlyStoreCreatesNoLockFileAndRefusesWrites() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ro.firn")
        do {
            let store = try Store.open(path)
            try store.write { txn in try #require(try txn.tree("t")).put([1], [2]) }
            store.close()
        }
        try FileManager.default.removeItem(atPath: path + ".lock")
        var options = StoreOptions()
        options.readOnly = true
        let store = try Store.open(path, options: options)
        #expect(store.lockFile == nil)
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        let snapshot = try store.snapshot()
        #expect(!snapshot.isPinned)
        #expect(try snapshot.tree("t")?.get([1])?.array == [2])
        #expect(throws: FirnError.self) { _ = try store.beginWriteBlocking() }
    }

    @Test func openingAMissingFileWithoutCreateSaysSo() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions()
        options.create = false
        #expect(throws: FirnError.notFound(path: dir.file("none.firn"), detail: "no such file")) {
            _ = try Store.open(dir.file("none.firn"), options: options)
        }
    }

    @Test func largePageSizesWork() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions()
        options.pageSize = 65536
        let store = try Store.open(dir.file("big.firn"), options: options)
        try store.write { txn in
            let tree = try #require(try txn.tree("t"))
            for i in 0..<3000 { try tree.put(Self.key(i), [UInt8](repeating: UInt8(i % 256), count: 300)) }
        }
        let reopened = try Store.open(dir.file("big.firn"))
        #expect(reopened.pageSize == 65536)
        let snapshot = try reopened.snapshot()
        #expect(try snapshot.tree("t")?.count == 3000)
        #expect(Verifier.verify(snapshot, slots: try reopened.readSlots()).findings == [])
    }
}
