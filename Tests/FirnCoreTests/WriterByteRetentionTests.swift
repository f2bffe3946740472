import Foundation
import Testing
@testable import FirnCore
import CFirnShims
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// A deferred commit that leaves its group open keeps the cross-process
/// writer byte until the group's durability point, so a process's next
/// grouped commit takes no `fcntl` (`LockFile.unlockWriter(_:keepingByteForGroup:)`).
/// Each test watches the byte from outside: another open file description
/// tries to lock it, as another process would.
@Suite struct WriterByteRetentionTests {
    /// Whether the writer byte of `path`'s lock file is free now: another
    /// open file description locks it and lets it go at once.
    static func byteIsFree(_ path: String) throws -> Bool {
        let fd = Glibc.open(path + ".lock", O_RDWR)
        try #require(fd >= 0)
        defer { Glibc.close(fd) }
        guard firn_ofd_lock(fd, 1, LockFileLayout.writerLockByte, 1) == 0 else { return false }
        _ = firn_ofd_lock(fd, 2, LockFileLayout.writerLockByte, 1)
        return true
    }

    /// `path` opened with its kept byte not let go for idleness within the
    /// hour, so a test can watch it kept between its own steps (a full
    /// parallel run has left an async test waiting over a minute for the
    /// cooperative pool).
    static func openKeeping(_ path: String, options: StoreOptions = StoreOptions()) throws -> Store {
        let store = try Store.open(path, options: options)
        store.group?.idleNanoseconds.store(3_600_000_000_000, ordering: .relaxed)
        return store
    }

    /// The writer state of `store`'s lock file, for a failure's message.
    static func describe(_ store: Store) -> String {
        guard let lock = store.lockFile else { return "no lock file" }
        let state = lock.local.withLock { $0 }
        return "kept \(state.retainedWriterByte), lease \(String(describing: state.writerLease)), closed \(state.closed), "
            + "record pid \(lock.mapping.loadInt32(LockFileLayout.writerPIDOffset)), "
            + "release counter \(lock.mapping.load32(LockFileLayout.writerReleaseCounterOffset)), fd \(lock.fd)"
    }

    static func put(_ store: Store, _ key: UInt8, _ durability: CommitDurability) throws -> UInt64 {
        let txn = try store.beginWriteBlocking(timeout: .seconds(5))
        try txn.tree("t")?.put([key], [key])
        return try txn.commit(durability: durability)
    }

    @Test(arguments: [false, true])
    func anOpenGroupKeepsTheByteUntilItsDurabilityPoint(pageCommits: Bool) throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte", inMemory: true)
        let path = dir.file("kept.firn")
        let store = try Self.openKeeping(path, options: pageCommits ? .pageCommits : StoreOptions())
        defer { store.close() }
        _ = try Self.put(store, 0, .durable)
        #expect(try Self.byteIsFree(path))
        // A group: kept from its first commit to its durability point,
        // with this process named as the holder.
        _ = try Self.put(store, 1, .deferred)
        #expect(try !Self.byteIsFree(path))
        #expect(store.lockFile?.writerPID == getpid())
        let last = try Self.put(store, 2, .deferred)
        #expect(try !Self.byteIsFree(path))
        #expect(try store.sync() == last)
        #expect(try Self.byteIsFree(path))
        #expect(store.lockFile?.writerPID == nil)
        // A durable commit on top of a group is its durability point.
        _ = try Self.put(store, 3, .deferred)
        let durable = try Self.put(store, 4, .durable)
        #expect(try Self.byteIsFree(path))
        #expect(try store.durableVersion == durable)
        // An aborted transaction lets the byte go; the group stays open
        // and its durability point still comes.
        let pending = try Self.put(store, 5, .deferred)
        let aborted = try store.beginWriteBlocking()
        aborted.abort()
        #expect(try Self.byteIsFree(path))
        #expect(try store.durableVersion < pending)
        #expect(try store.sync() == pending)
        // The next holder after a kept byte is not taken for a dead owner's heir.
        _ = try Self.put(store, 6, .deferred)
        _ = try Self.put(store, 7, .deferred)
        #expect(store.lockFile?.lastLockRecoveredFromDeadOwner == false)
        _ = try store.sync()
    }

    /// Without a sync there is no durability point to wait for: nothing is kept.
    @Test func commitsThatAreNeverSyncedKeepNothing() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte", inMemory: true)
        let path = dir.file("nosync.firn")
        var options = StoreOptions()
        options.durability = .none
        let store = try Self.openKeeping(path, options: options)
        defer { store.close() }
        _ = try Self.put(store, 1, .deferred)
        #expect(try Self.byteIsFree(path))
    }

    /// Another `Store` of the same file in this process takes a kept byte at
    /// once, even on the thread whose group keeps it (nothing else would
    /// ever release it there), and its durable commit makes the group durable.
    @Test func anotherStoreOfThisProcessTakesAKeptByteAtOnce() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte", inMemory: true)
        let path = dir.file("siblings.firn")
        let first = try Self.openKeeping(path)
        let second = try Self.openKeeping(path)
        defer {
            second.close()
            first.close()
        }
        _ = try Self.put(first, 0, .durable)
        let grouped = try Self.put(first, 1, .deferred)
        #expect(try !Self.byteIsFree(path))
        // At once, shown by order rather than a wall-clock bound: the byte
        // is kept for an hour here (`openKeeping`) and nothing on this
        // thread lets it go, so a store that waited for it would throw
        // `writerBusy` at `put`'s 5 s timeout instead of committing.
        let durable = try Self.put(second, 2, .durable)
        #expect(durable > grouped)
        #expect(try first.durableVersion == durable)
        // And the other way round, through `tryBeginWrite`.
        _ = try Self.put(second, 3, .deferred)
        let taken = try first.tryBeginWrite()
        #expect(taken != nil)
        taken?.abort()
        #expect(try first.sync() == (second.currentVersion))
    }

    /// A writer in another process waiting for the byte gets it at the
    /// holder's next commit (which then lets the byte go), not only at the
    /// durability point.
    @Test func aWaitingProcessGetsTheByteAtTheHoldersNextCommit() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte")
        let path = dir.file("waiter.firn")
        let store = try Self.openKeeping(path)
        defer { store.close() }
        _ = try Self.put(store, 0, .durable)
        _ = try Self.put(store, 1, .deferred)
        let child = try ChildProcess.testkit(["lock-writer", path, "0"])
        // It waits: the byte is kept, and nothing here releases it yet.
        #expect(child.readLine(timeout: .milliseconds(300)) == nil)
        // Each commit lets the byte go once it sees a waiter asleep; the
        // waiter sleeps between tries (and a child started on a loaded
        // machine may not be waiting yet), so commit on until it is served,
        // within a generous deadline rather than a fixed count of commits.
        var served = false
        var key: UInt8 = 2
        let deadline = ContinuousClock.now + .seconds(30)
        while !served, ContinuousClock.now < deadline {
            let running = child.isRunning
            _ = try Self.put(store, key, .deferred)
            key = key == 255 ? 2 : key + 1
            served = child.readLine(timeout: .milliseconds(50)) == "ready"
            // Exited before that commit: whatever it wrote was read above.
            if !running { break }
        }
        #expect(served, "the waiting process never got the byte: \(child.errorOutput())")
        #expect(child.waitForExit(timeout: .seconds(10)) == 0)
        _ = try store.sync()
    }

    /// An open group that goes quiet keeps nothing: the watch lets the
    /// byte go after about 2 ms without a commit — to a process waiting for
    /// it as well, though this one commits nothing more and never syncs.
    @Test func anIdleGroupLetsTheByteGo() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte")
        let path = dir.file("idle.firn")
        let store = try Store.open(path)
        defer { store.close() }
        _ = try Self.put(store, 0, .durable)
        let pending = try Self.put(store, 1, .deferred)
        // About 2 ms; the deadline is generous for a loaded machine.
        #expect(try eventually(within: .seconds(30)) { try Self.byteIsFree(path) })
        #expect(store.lockFile?.writerPID == nil)
        #expect(try store.durableVersion < pending)
        // Kept again by the next commit, and let go again to a waiter.
        _ = try Self.put(store, 2, .deferred)
        let child = try ChildProcess.testkit(["lock-writer", path, "0"])
        #expect(child.readLine(timeout: .seconds(30)) == "ready", "\(child.errorOutput())")
        #expect(child.waitForExit(timeout: .seconds(10)) == 0)
        // Another process's writer came between: the group is made durable all the same.
        #expect(try store.sync() >= pending)
        #expect(try store.durableVersion == store.currentVersion)
    }

    /// The durability point lets a kept byte go and wakes a waiting process.
    @Test func aDurabilityPointWakesAWaitingProcess() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte")
        let path = dir.file("wake.firn")
        let store = try Self.openKeeping(path)
        defer { store.close() }
        _ = try Self.put(store, 0, .durable)
        let pending = try Self.put(store, 1, .deferred)
        let child = try ChildProcess.testkit(["lock-writer", path, "0"])
        #expect(child.readLine(timeout: .milliseconds(300)) == nil)
        #expect(try store.sync() == pending)
        #expect(child.readLine(timeout: .seconds(30)) == "ready", "\(child.errorOutput())")
        #expect(child.waitForExit(timeout: .seconds(10)) == 0)
    }

    /// `close()` lets a kept byte go at once, even while a snapshot keeps
    /// the lock file open.
    @Test func closingTheStoreLetsAKeptByteGoWhileSnapshotsLive() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte", inMemory: true)
        let path = dir.file("close.firn")
        let store = try Self.openKeeping(path)
        _ = try Self.put(store, 0, .durable)
        _ = try Self.put(store, 1, .deferred)
        let snapshot = try store.snapshot()
        #expect(try !Self.byteIsFree(path))
        store.close()
        #expect(try Self.byteIsFree(path))
        #expect(try snapshot.tree("t")?.get([1]).map { Array($0.bytes) } == [1])
        snapshot.close()
    }

    /// A task cancelled before it got the lock never holds it, also when
    /// the byte was kept for the group: the byte stays kept, and the
    /// group's durability point still lets it go.
    @Test func aCancelledTaskLeavesAKeptByteKept() async throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte", inMemory: true)
        let path = dir.file("cancel.firn")
        let store = try Self.openKeeping(path)
        defer { store.close() }
        _ = try Self.put(store, 0, .durable)
        let pending = try Self.put(store, 1, .deferred)
        #expect(try !Self.byteIsFree(path))
        let cancelled = await Task { () async -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                let txn = try await store.beginWrite()
                txn.abort()
                return false
            } catch is CancellationError {
                return true
            } catch {
                return false
            }
        }.value
        #expect(cancelled)
        #expect(try !Self.byteIsFree(path), "\(Self.describe(store))")
        #expect(try store.sync() == pending)
        #expect(try Self.byteIsFree(path))
    }

    /// A process killed while it keeps the byte for its group: the kernel
    /// drops its lock, the record still names it, so the next writer knows
    /// it recovered the lock from a dead owner. The group's deferred commit
    /// was still in the dead process's memory (FORMAT.md 8.1: written at the
    /// durability point, when the byte goes, or within 2 ms of commits): it
    /// was never published, nobody else read it, and the next writer builds
    /// on the version before it, taking its number.
    @Test func aProcessKilledWhileKeepingTheByteIsRecovered() throws {
        let dir = try TemporaryDirectory(prefix: "firn-kept-byte")
        let path = dir.file("killed.firn")
        let creator = try Store.open(path)
        _ = try Self.put(creator, 0, .durable)
        creator.close()
        let child = try ChildProcess.testkit(["group-hold", path, "60"])
        let committed = child.readLine(timeout: .seconds(20))
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: path)
        defer { lock.close() }
        #expect(lock.writerPID == child.pid)
        #expect(try lock.tryLockWriter() == nil)
        child.kill(SIGKILL)
        #expect(child.waitForExit(timeout: .seconds(10)) == SIGKILL)
        let store = try Store.open(path)
        defer { store.close() }
        let txn = try store.beginWriteBlocking(timeout: .seconds(5))
        #expect(store.lockFile?.lastLockRecoveredFromDeadOwner == true)
        #expect(committed == "c \(txn.version)")
        #expect(try txn.tree("t")?.get(Array("held".utf8)) == nil)
        txn.abort()
    }
}
