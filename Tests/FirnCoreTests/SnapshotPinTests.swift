import Foundation
import Synchronization
import Testing
@testable import FirnCore

/// Pins follow the snapshots that own them: a snapshot that fails to open
/// leaves no pin behind, whichever step failed.
@Suite struct SnapshotPinTests {
    /// The countdown the test arms and the wrapper reads.
    final class Box: Sendable { let countdown = Mutex<Int?>(nil) }

    /// Passes everything through, but makes the n-th `size()` call from
    /// when it is armed fail (every step of opening a snapshot asks it).
    final class SizeFailingIO: FileIO, @unchecked Sendable {
        let base: any FileIO
        let box: Box
        init(_ base: any FileIO, box: Box) {
            self.base = base
            self.box = box
        }
        var path: String { base.path }
        var descriptor: Int32 { base.descriptor }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) { try base.write(bytes, at: offset) }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
            try base.read(into: buffer, at: offset)
        }
        func sync() throws(FirnError) { try base.sync() }
        func extend(to size: UInt64) throws(FirnError) { try base.extend(to: size) }
        func size() throws(FirnError) -> UInt64 {
            let fail = box.countdown.withLock { n -> Bool in
                guard let left = n else { return false }
                n = left - 1
                return left == 1
            }
            if fail { throw FirnError.io(path: path, operation: "injected fstat", errno: 5) }
            return try base.size()
        }
        func close() { base.close() }
    }

    @Test func aSnapshotOfAnOlderVersionThatFailsAtAnyStepLeavesNoPin() throws {
        let dir = try TemporaryDirectory()
        let box = Box()
        // Page commits: the previous slot is the version before (on the log
        // it is the checkpoint before, and a refresh to this store's own
        // frame reads no slot, so fewer steps size the file).
        var options = StoreOptions.pageCommits
        options.wrapIO = { SizeFailingIO($0, box: box) }
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
