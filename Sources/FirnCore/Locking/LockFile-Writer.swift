#if canImport(Glibc)
import Glibc
#endif
import CFirnShims
import Dispatch
import Synchronization

/// Proof of holding the writer lock through one `LockFile`. Not tied to a
/// thread: a transaction begun on one thread may be committed, aborted or
/// released on another. Releasing a lease that is no longer current (twice,
/// or after close) does nothing, so a late release never frees a lock that
/// has since been granted to someone else.
package struct WriterLease: Sendable, Hashable {
    let generation: UInt64
    /// The writer release counter when the lock was granted.
    let releaseCounter: UInt32
    /// The lock was taken over from a holder that died holding it.
    let recoveredFromDeadOwner: Bool

    /// Whether no other holder had the lock between the release that left
    /// `mark` (`unlockWriter`'s result) and this lease: every release adds
    /// two to the counter, the first while still holding the lock, so the
    /// counter is `mark + 1` exactly when the only release since was that
    /// one; a holder that died without releasing leaves its record behind.
    func follows(releaseMark mark: UInt32) -> Bool {
        !recoveredFromDeadOwner && releaseCounter == mark &+ 1
    }
}

/// The writer lock: one writer at a time across threads and processes.
///
/// - Inside a process, each `LockFile` has a fair queue (`WriterQueue`):
///   threads that block and tasks that suspend are served in the order
///   they asked.
/// - Across processes (and across `LockFile`s of one process), the holder
///   of the queue's permit takes an OFD write lock on the lock file's writer
///   byte. OFD locks belong to the open file description, not to a thread,
///   and the kernel drops them when the process dies: a dead writer never
///   blocks anyone, and the next locker learns it recovered the lock from
///   the record the dead writer left (`lastLockRecoveredFromDeadOwner`).
///   Waiters sleep on the writer-release futex word, which every release
///   bumps; they re-check at least every few milliseconds, which also
///   covers a holder that died without a release.
extension LockFile {
    /// How long a waiter sleeps on the release futex before trying again
    /// (a writer that died never bumps it).
    static let writerRetryInterval: UInt64 = 5_000_000

    /// Takes the writer lock, waiting at most `timeout` (nil: forever).
    /// Throws `.busy` naming the holder when the time runs out, `.misuse`
    /// when this thread began a transaction that still holds it (waiting
    /// would deadlock).
    @discardableResult
    package func lockWriter(timeout: Duration?) throws(FirnError) -> WriterLease {
        try ensureOpen()
        let thread = firn_gettid()
        if mapping.loadInt32(LockFileLayout.writerPIDOffset) == ownPID
            && mapping.loadInt32(LockFileLayout.writerThreadOffset) == Int32(truncatingIfNeeded: thread) {
            throw FirnError.misuse("\(path): this thread already holds the write lock; locking it again would deadlock")
        }
        let nanoseconds = timeout.map { LockClock.nanoseconds($0) } ?? -1
        let deadline = nanoseconds < 0 ? nil : Optional(monotonicNanoseconds() &+ UInt64(nanoseconds))
        guard writerQueue.acquire(deadline: deadline) else { throw writerBusy(nanoseconds) }
        if takeRetainedWriterByte() { return didAcquireWriter(thread: thread, retained: true) }
        do throws(FirnError) {
            guard try acquireWriterByte(deadline: deadline, isCancelled: { false }) else { throw writerBusy(nanoseconds) }
        } catch {
            writerQueue.release()
            throw error
        }
        return didAcquireWriter(thread: thread)
    }

    /// Suspends (never blocking the caller's thread) until the writer lock
    /// is granted, at most `timeout` (nil: forever). Throws
    /// `CancellationError` when the task is cancelled before it got the
    /// lock — it then never held it — or `FirnError.busy` on timeout.
    package func lockWriter(timeout: Duration?) async throws -> WriterLease {
        try ensureOpen()
        let nanoseconds = timeout.map { LockClock.nanoseconds($0) } ?? -1
        let deadline = nanoseconds < 0 ? nil : Optional(monotonicNanoseconds() &+ UInt64(nanoseconds))
        try await writerQueue.acquire()
        if takeRetainedWriterByte() {
            if Task.isCancelled {
                // Cancelled first: never held. The byte stays with the group.
                keepRetainedWriterByte()
                writerQueue.release()
                throw CancellationError()
            }
            return didAcquireWriter(thread: 0, retained: true)
        }
        // The cross-process lock may take a while: wait for it on a thread
        // of our own, never on the caller's (a cooperative pool thread).
        let cancelled = CancellationFlag()
        let acquired: Bool
        do {
            acquired = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                    DispatchQueue.global().async {
                        do throws(FirnError) {
                            continuation.resume(returning: try self.acquireWriterByte(
                                deadline: deadline, isCancelled: { cancelled.isSet }))
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
            } onCancel: {
                cancelled.set()
            }
        } catch {
            writerQueue.release()
            throw error
        }
        guard acquired, !Task.isCancelled else {
            if acquired { releaseWriterByte() }
            writerQueue.release()
            if Task.isCancelled { throw CancellationError() }
            throw writerBusy(nanoseconds)
        }
        // A task is not a thread: no thread is recorded as the holder.
        return didAcquireWriter(thread: 0)
    }

    /// Takes the writer lock if it is free; nil when someone holds it.
    package func tryLockWriter() throws(FirnError) -> WriterLease? {
        try ensureOpen()
        guard writerQueue.tryAcquire() else { return nil }
        if takeRetainedWriterByte() { return didAcquireWriter(thread: firn_gettid(), retained: true) }
        let result = tryWriterByte()
        if result == 0 { return didAcquireWriter(thread: firn_gettid()) }
        writerQueue.release()
        if result == EAGAIN || result == EACCES { return nil }
        throw FirnError.io(path: path, operation: "fcntl(F_OFD_SETLK) writer lock", errno: result)
    }

    /// Releases the writer lock held through `lease`, from any thread.
    /// Does nothing when the lease is not the current one (nil). Returns
    /// this release's mark: the next lease `follows` it when no other
    /// holder came in between.
    ///
    /// `keptBy`: the transaction left a group open (deferred commits, not
    /// yet durable), and `holder` keeps the cross-process writer byte for
    /// it: the in-process permit goes, so the next transaction of this
    /// process begins at once, but the byte stays locked while the group
    /// goes on — much as Realm keeps its write lock across grouped async
    /// commits until their sync. That spares the two `fcntl`s of each
    /// grouped commit. The holder decides when the byte goes
    /// (`releaseKeptWriterByte`): this layer only tells it when a writer of
    /// another `LockFile` of this process finds the byte taken
    /// (`WriterByteSiblings`: one thread may hold both), and shows whether
    /// writers elsewhere wait (`writersWaitElsewhere`). The release counter
    /// moves as for a release (`releaseWriterByte`).
    @discardableResult
    package func unlockWriter(_ lease: WriterLease, keptBy holder: (any KeptWriterByteHolder)? = nil) -> UInt32? {
        let keep = holder != nil
        let holds = local.withLock { state -> Bool in
            guard !state.closed, state.writerLease == lease.generation else { return false }
            state.writerLease = nil
            state.retainedWriterByte = keep
            state.keptByteHolder = holder
            return true
        }
        guard holds else { return nil }
        if keep {
            // The record keeps naming this process (the byte is held: `firn
            // info` and a busy error say who holds it), but no thread.
            mapping.storeInt32(LockFileLayout.writerThreadOffset, 0)
        } else {
            clearWriterRecord()
        }
        let mark = releaseWriterByte(keepingByte: keep)
        writerQueue.release()
        return mark
    }

    /// Whether a writer of another process (or another `LockFile` of this
    /// one) sleeps waiting for the writer byte.
    package var writersWaitElsewhere: Bool {
        mapping.load32(LockFileLayout.writerWaitersOffset) != 0
    }

    /// Whether the writer byte is kept for an open group (no lease holds it).
    package var keepsWriterByte: Bool {
        local.withLock { $0.retainedWriterByte && !$0.closed }
    }

    /// Releases the writer byte kept for an open group, if it is kept and
    /// no transaction of this `LockFile` is under way or waiting (that
    /// one's end decides), after `beforeRelease` — run holding the
    /// in-process permit, with the byte still locked: the holder writes
    /// there what whoever takes the byte next must find in the file. True
    /// when it was released. Never waits for the in-process permit: a
    /// transaction of this `LockFile` holds it until its end, which decides.
    @discardableResult
    package func releaseKeptWriterByte(beforeRelease: () -> Void) -> Bool {
        guard writerQueue.tryAcquire() else { return false }
        defer { writerQueue.release() }
        guard takeRetainedWriterByte() else { return false }
        beforeRelease()
        clearWriterRecord()
        releaseWriterByte()
        return true
    }

    /// Tells the holder of a byte kept through this `LockFile` that a
    /// writer of another `LockFile` of this process wants it. True when it
    /// was let go.
    func askKeptByteHolderToRelease() -> Bool {
        guard let holder = local.withLock({ $0.retainedWriterByte && !$0.closed ? $0.keptByteHolder : nil }) else {
            return false
        }
        return holder.keptWriterByteWanted()
    }

    /// Takes over the byte kept for an open group (the caller holds the
    /// in-process permit). False when the byte is not kept.
    private func takeRetainedWriterByte() -> Bool {
        local.withLock { state in
            defer { state.retainedWriterByte = false }
            return state.retainedWriterByte && !state.closed
        }
    }

    /// Gives back a byte taken by `takeRetainedWriterByte` unused.
    private func keepRetainedWriterByte() {
        local.withLock { state in
            if !state.closed { state.retainedWriterByte = true }
        }
    }

    /// True while `lease` is the lease currently held through this `LockFile`.
    package func holdsWriter(_ lease: WriterLease) -> Bool {
        local.withLock { !$0.closed && $0.writerLease == lease.generation }
    }

    /// The holder's work moved to another thread (a transaction handed
    /// over): the thread that took the lock may wait for it again.
    func writerMovedThread() {
        mapping.storeInt32(LockFileLayout.writerThreadOffset, 0)
    }

    /// The pid holding the writer lock, or nil when it is free or its
    /// holder has exited (the next locker will recover it).
    package var writerPID: Int32? {
        guard !isClosed else { return nil }
        let pid = mapping.loadInt32(LockFileLayout.writerPIDOffset)
        guard pid != 0 else { return nil }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        return probe.isAlive(pid) ? pid : nil
    }

    /// True when the last acquisition of the writer lock through this
    /// `LockFile` found that its previous holder had died holding it.
    package var lastLockRecoveredFromDeadOwner: Bool {
        local.withLock { $0.lastLockRecoveredFromDeadOwner }
    }

    // MARK: the cross-process lock

    /// Takes the OFD write lock on the writer byte, sleeping on the release
    /// futex between attempts. False at the deadline or when cancelled.
    private func acquireWriterByte(deadline: UInt64?, isCancelled: () -> Bool) throws(FirnError) -> Bool {
        while true {
            // Read the counter before trying: a release after a failed try
            // changes it, so the wait below returns at once.
            let counter = mapping.load32(LockFileLayout.writerReleaseCounterOffset)
            let result = tryWriterByte()
            if result == 0 { return true }
            guard result == EAGAIN || result == EACCES else {
                throw FirnError.io(path: path, operation: "fcntl(F_OFD_SETLK) writer lock", errno: result)
            }
            if isCancelled() || isClosed { return false }
            var wait = Self.writerRetryInterval
            if let deadline {
                let now = monotonicNanoseconds()
                guard now < deadline else { return false }
                wait = min(wait, deadline - now)
            }
            mapping.wait(LockFileLayout.writerReleaseCounterOffset, expected: counter,
                         countedIn: LockFileLayout.writerWaitersOffset, nanoseconds: Int64(wait))
        }
    }

    /// Drops the OFD lock on the writer byte and wakes the waiters. The
    /// release counter goes up twice: once while the lock is still held
    /// (the value then is this release's mark: no one else can move the
    /// counter before it), and once after the lock is dropped, which is
    /// what wakes a waiter that read the counter before its try failed
    /// (only while one is counted: `SharedMapping.wake`).
    ///
    /// `keepingByte`: a release that keeps the byte for an open group moves
    /// the counter the same way (marks and `follows` mean the same either
    /// way) but drops nothing and wakes no one.
    @discardableResult
    func releaseWriterByte(keepingByte: Bool = false) -> UInt32 {
        let mark = mapping.add32(LockFileLayout.writerReleaseCounterOffset, 1)
        if !keepingByte { _ = firn_ofd_lock(fd, 2, LockFileLayout.writerLockByte, 1) }
        _ = mapping.add32(LockFileLayout.writerReleaseCounterOffset, 1)
        if !keepingByte {
            mapping.wake(LockFileLayout.writerReleaseCounterOffset, countedIn: LockFileLayout.writerWaitersOffset)
        }
        return mark
    }

    /// One try for the OFD write lock on the writer byte: 0 when taken,
    /// else the errno. A try that finds it taken first asks the other
    /// `LockFile`s of this process to let go of a byte they keep for an
    /// idle group (`WriterByteSiblings`), and tries again: no release would
    /// ever wake a waiter for that byte, and one thread may hold both.
    private func tryWriterByte() -> Int32 {
        let result = SystemCall.status { firn_ofd_lock(fd, 1, LockFileLayout.writerLockByte, 1) }
        guard result == EAGAIN || result == EACCES, WriterByteSiblings.askToRelease(lockFileIdentity, except: self)
        else { return result }
        return SystemCall.status { firn_ofd_lock(fd, 1, LockFileLayout.writerLockByte, 1) }
    }

    private func didAcquireWriter(thread: Int64, retained: Bool = false) -> WriterLease {
        // A record still naming a process means its holder died holding the
        // lock (a release clears it first) — unless it names us keeping
        // the byte for a group.
        let previous = retained ? 0 : mapping.loadInt32(LockFileLayout.writerPIDOffset)
        let counter = firn_atomic_load_u32(mapping.pointer32(LockFileLayout.writerReleaseCounterOffset))
        mapping.storeInt32(LockFileLayout.writerPIDOffset, ownPID)
        mapping.storeInt32(LockFileLayout.writerThreadOffset, Int32(truncatingIfNeeded: thread))
        mapping.store64(LockFileLayout.writerSinceOffset, wallClockNanoseconds())
        return local.withLock { state in
            state.writerLeaseCounter &+= 1
            state.writerLease = state.writerLeaseCounter
            state.lastLockRecoveredFromDeadOwner = previous != 0
            return WriterLease(generation: state.writerLeaseCounter, releaseCounter: counter,
                               recoveredFromDeadOwner: previous != 0)
        }
    }

    func clearWriterRecord() {
        mapping.store64(LockFileLayout.writerSinceOffset, 0)
        mapping.storeInt32(LockFileLayout.writerThreadOffset, 0)
        mapping.storeInt32(LockFileLayout.writerPIDOffset, 0)
    }

    private func writerBusy(_ nanoseconds: Int64) -> FirnError {
        FirnError.busy(
            path: path,
            detail: "write lock not obtained within \(LockClock.seconds(max(0, nanoseconds))) s; \(writerHolderDescription())")
    }

    /// "held by pid 4242 since 2025-01-31T12:00:00Z (3.2 s ago)".
    func writerHolderDescription() -> String {
        let pid = mapping.loadInt32(LockFileLayout.writerPIDOffset)
        guard pid != 0 else { return "its holder has not recorded itself" }
        let since = mapping.load64(LockFileLayout.writerSinceOffset)
        let now = wallClockNanoseconds()
        let held = now >= since ? Int64(clamping: now - since) : 0
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        let note = probe.isAlive(pid) ? "" : ", which has exited"
        return "held by pid \(pid)\(note) since \(LockClock.iso8601(since)) (\(LockClock.seconds(held)) s ago)"
    }
}

/// Set once from a task's cancellation handler, read by the thread that
/// waits for the cross-process lock.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { flag.load(ordering: .sequentiallyConsistent) }
}
