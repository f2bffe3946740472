import Foundation
import Synchronization
import Testing
@testable import FirnCore
import FirnTestSupport

/// Pins the SDK can share and move: refresh keeps the reader slot, one pin
/// serves every holder of a version in a process with an exact frozen-object
/// count, holders name themselves, closing a store keeps the pins of
/// snapshots still alive, and close wakes a commit watcher.
@Suite struct PinSharingTests {
    @Test func refreshMovesThePinToTheLatestVersionInTheSameSlot() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("refresh.firn"))
        defer { store.close() }
        let lockFile = try #require(store.lockFile)
        try store.put("a")
        let first = try store.snapshot(label: "live instance")
        let slot = try #require(lockFile.pins().first).slot
        try store.put("b")
        try store.put("c")
        let refreshed = try store.refresh(first)
        #expect(refreshed.version == first.version + 2)
        #expect(!(first.pin != nil))
        let pins = lockFile.pins()
        #expect(pins.count == 1 && pins.first?.slot == slot && pins.first?.version == refreshed.version
                && pins.first?.label == "live instance")
        #expect(try refreshed.tree("t")?.get(Array("c".utf8)) != nil)
        // Already the latest: the same snapshot comes back.
        #expect(try store.refresh(refreshed) === refreshed)
        refreshed.close()
        #expect(lockFile.pins().isEmpty)
    }

    @Test func oneVersionSharesOnePinAndItsFrozenCountIsExactUnderConcurrentHolders() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("shared.firn"))
        defer { store.close() }
        let lockFile = try #require(store.lockFile)
        try store.put("a")
        let anchor = try store.sharedSnapshot(kind: .frozen, label: "frozen results")
        let version = anchor.version
        let threads = (0..<8).map { n in
            BackgroundThread { () -> Bool in
                for round in 0..<200 {
                    guard let share = try? store.sharedSnapshot(version: version, kind: .frozen) else { return false }
                    guard share.version == version else { return false }
                    // Each thread keeps (n + 1) objects per round alive, then lets them go.
                    share.addFrozenObjects(Int64(n + 1))
                    if round % 2 == 0 { share.addFrozenObjects(-Int64(n + 1)) } else { share.addFrozenObjects(-Int64(n + 1)) }
                    share.release()
                }
                return true
            }
        }
        // Meanwhile a standing count that must survive all of it exactly.
        anchor.addFrozenObjects(1000)
        for thread in threads { #expect(thread.join(timeout: .seconds(60)) == true) }
        let pins = lockFile.pins()
        #expect(pins.count == 1, "\(pins)")
        #expect(pins.first?.version == version && pins.first?.kind == .frozen && pins.first?.frozenObjects == 1000)
        #expect(store.shares.shareCount(.init(version: version, kind: .frozen)) == 1)
        anchor.addFrozenObjects(-1000)
        anchor.release()
        anchor.release()
        #expect(lockFile.pins().isEmpty, "the last share left the pin behind")
    }

    @Test func sharesOfDifferentVersionsOrKindsArePinnedApart() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("kinds.firn"))
        defer { store.close() }
        let lockFile = try #require(store.lockFile)
        try store.put("a")
        let frozen = try store.sharedSnapshot(kind: .frozen)
        let again = try store.sharedSnapshot(kind: .frozen)
        #expect(frozen.snapshot === again.snapshot)
        let reference = try store.sharedSnapshot(kind: .threadSafeReference)
        try store.put("b")
        let newer = try store.sharedSnapshot(kind: .frozen)
        #expect(newer.version == frozen.version + 1)
        #expect(lockFile.pins().count == 3)
        for share in [frozen, again, reference, newer] { share.release() }
        #expect(lockFile.pins().isEmpty)
    }

    @Test func theHolderNamesItsThreadAndLabel() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("holder.firn"))
        defer { store.close() }
        let snapshot = try store.snapshot(label: "claimed by a pool thread")
        snapshot.setHolder(threadID: 4242, label: "queue com.example.sync")
        let pin = try #require(store.pins().first)
        #expect(pin.threadID == 4242 && pin.label == "queue com.example.sync")
        snapshot.close()
    }

    @Test func closingTheStoreKeepsThePinsOfSnapshotsStillAlive() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("close.firn")
        let store = try Store.open(path)
        for i in 0..<20 { try store.put("k\(i)", "first \(i)") }
        let frozen = try store.snapshot(kind: .frozen, label: "outlives the store")
        store.close()
        #expect(throws: FirnError.self) { try store.snapshot() }
        // Another store rewrites every key many times: the pinned version's
        // pages must not be reused while the snapshot lives.
        let writer = try Store.open(path)
        defer { writer.close() }
        #expect(writer.lockFile?.pins().map(\.label) == ["outlives the store"])
        for round in 0..<30 {
            for i in 0..<20 { try writer.put("k\(i)", "round \(round) \(i)") }
        }
        let tree = try #require(try frozen.tree("t"))
        for i in 0..<20 {
            #expect(try tree.get(Array("k\(i)".utf8))?.array == Array("first \(i)".utf8))
        }
        // The closed store's session is still held (its pin needs it)…
        #expect(throws: FirnError.self) { try writer.lockFile?.tryExclusiveSession() }
        frozen.close()
        // …and goes with the last snapshot.
        #expect(writer.lockFile?.pins().isEmpty == true)
        try writer.lockFile?.tryExclusiveSession()
        writer.lockFile?.releaseExclusiveSession()
    }

    @Test func aTransactionRunningWhenTheStoreClosesStillCommitsSafely() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("close-txn.firn")
        let store = try Store.open(path)
        let txn = try store.beginWriteBlocking(timeout: .seconds(5))
        try #require(try txn.tree("t")).put(Array("during close".utf8), [1])
        store.close()
        try txn.commit()
        let reopened = try Store.open(path)
        defer { reopened.close() }
        #expect(try reopened.snapshot().tree("t")?.get(Array("during close".utf8))?.array == [1])
    }

    @Test func closeWakesACommitWatcher() throws {
        let dir = try TemporaryDirectory()
        // Many rounds with close() at varied moments: a close that lands
        // between the watcher's last check and its sleep must still wake it.
        var rng = SeededGenerator(seed: 0xC105E)
        for round in 0..<40 {
            let store = try Store.open(dir.file("watch-\(round).firn"))
            let version = try store.currentVersion
            let started = ContinuousClock.now
            let watcher = BackgroundThread { () -> String in
                do {
                    _ = try store.waitForCommit(after: version, timeout: .seconds(60))
                    return "returned"
                } catch {
                    return "\(error)"
                }
            }
            usleep(UInt32.random(in: 0...3_000, using: &rng))
            store.close()
            // A missed wake would leave the watcher asleep for its whole 60 s;
            // the bound is far below that and far above any scheduling delay.
            let outcome = watcher.join(timeout: .seconds(40))
            #expect(ContinuousClock.now - started < .seconds(30), "round \(round)")
            #expect(outcome?.contains("closed") == true, "round \(round): \(String(describing: outcome))")
        }
    }
}
