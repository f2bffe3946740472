import Foundation
import Synchronization
import Testing
@testable import FirnCore
import FirnTestSupport

/// Pins follow the snapshots that own them: a snapshot that fails to open
/// leaves no pin behind, whichever step failed.
@Suite struct SnapshotPinTests {
    /// The countdown the test arms and the wrapper reads.
    final class Box: Sendable { let countdown = Mutex<Int?>(nil) }

    /// Makes the n-th `size()` call from when `box` is armed fail (every
    /// step of opening a snapshot asks it); everything else passes through.
    static func sizeFailing(_ base: any FileIO, box: Box) -> HookedIO {
        let path = base.path
        return HookedIO(base, beforeSize: { () throws(FirnError) in
            let fail = box.countdown.withLock { n -> Bool in
                guard let left = n else { return false }
                n = left - 1
                return left == 1
            }
            if fail { throw FirnError.io(path: path, operation: "injected fstat", errno: 5) }
        })
    }

    @Test func aSnapshotOfAnOlderVersionThatFailsAtAnyStepLeavesNoPin() throws {
        let dir = try TemporaryDirectory()
        let box = Box()
        // Page commits: the previous slot is the version before (on the log
        // it is the checkpoint before, and a refresh to this store's own
        // frame reads no slot, so fewer steps size the file).
        var options = StoreOptions.pageCommits
        options.wrapIO = { Self.sizeFailing($0, box: box) }
        let store = try Store.open(dir.file("pins.firn"), options: options)
        defer { store.close() }
        for i in 0..<3 {
            try store.write { txn in _ = try #require(try txn.tree("t")).put(Array("k\(i)".utf8), [1]) }
        }
        let lockFile = try #require(store.lockFile)
        let previous = try #require(try store.readSlots().previous).version
        var failures = 0
        for step in 1...8 {
            box.countdown.withLock { $0 = step }
            do {
                let snapshot = try store.snapshot(version: previous)
                #expect(snapshot.version == previous)
                snapshot.close()
            } catch {
                failures += 1
            }
            box.countdown.withLock { $0 = nil }
            #expect(lockFile.pins().isEmpty, "failing size() call #\(step) left a pin: \(lockFile.pins())")
        }
        // The store looks at the file's size only for a version past the
        // largest size it has seen, so fewer steps size the file than once.
        #expect(failures >= 2, "the injected failures did not reach the snapshot's steps")
    }
}
