#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// The writer lock: one writer at a time across threads and processes, a
/// robust process-shared mutex in the lock file's header. A writer that
/// dies holding it does not block anyone: the next locker recovers it (the
/// database's commit protocol keeps the data file consistent) and
/// `lastLockRecoveredFromDeadOwner` says so.
///
/// The mutex belongs to a thread: `unlockWriter()` must run on the thread
/// that locked it (do not lock across a suspension point of a Task).
extension LockFile {
    var writerMutex: UnsafeMutablePointer<pthread_mutex_t> {
        mapping.rawPointer(LockFileLayout.writerMutexOffset, count: LockFileLayout.writerMutexCapacity)
            .assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// Takes the writer lock, waiting at most `timeout` (nil: forever).
    /// Throws `.busy` naming the holder when the time runs out, `.misuse`
    /// when this thread already holds it (waiting would deadlock).
    public func lockWriter(timeout: Duration?) throws(FirnError) {
        try ensureOpen()
        let thread = firn_gettid()
        if mapping.loadInt32(LockFileLayout.writerPIDOffset) == ownPID
            && mapping.loadInt32(LockFileLayout.writerThreadOffset) == Int32(truncatingIfNeeded: thread) {
            throw FirnError.misuse("\(path): this thread already holds the write lock; locking it again would deadlock")
        }
        let nanoseconds = timeout.map { LockClock.nanoseconds($0) } ?? -1
        var recovered: Int32 = 0
        let result = firn_mutex_lock(writerMutex, nanoseconds, &recovered)
        if result == 0 {
            didAcquireWriter(thread: thread, recovered: recovered != 0)
            return
        }
        if result == ETIMEDOUT {
            throw FirnError.busy(
                path: path,
                detail: "write lock not obtained within \(LockClock.seconds(nanoseconds)) s; \(writerHolderDescription())")
        }
        throw FirnError.io(path: path, operation: "pthread_mutex_timedlock", errno: result)
    }

    /// Takes the writer lock if it is free; false when someone holds it.
    public func tryLockWriter() throws(FirnError) -> Bool {
        try ensureOpen()
        var recovered: Int32 = 0
        let result = firn_mutex_trylock(writerMutex, &recovered)
        if result == 0 {
            didAcquireWriter(thread: firn_gettid(), recovered: recovered != 0)
            return true
        }
        if result == EBUSY { return false }
        throw FirnError.io(path: path, operation: "pthread_mutex_trylock", errno: result)
    }

    /// Releases the writer lock. Does nothing unless this thread holds it
    /// through this `LockFile`.
    public func unlockWriter() {
        let thread = firn_gettid()
        let holds = local.withLock { state -> Bool in
            guard !state.closed, state.writerThread == thread else { return false }
            state.writerThread = nil
            return true
        }
        guard holds else { return }
        clearWriterRecord()
        _ = firn_mutex_unlock(writerMutex)
    }

    /// The pid holding the writer lock, or nil when it is free or its
    /// holder has exited (the next locker will recover it).
    public var writerPID: Int32? {
        guard !isClosed else { return nil }
        let pid = mapping.loadInt32(LockFileLayout.writerPIDOffset)
        guard pid != 0 else { return nil }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        return probe.isAlive(pid) ? pid : nil
    }

    /// True when the last acquisition of the writer lock through this
    /// `LockFile` found its previous owner dead (`EOWNERDEAD`).
    public var lastLockRecoveredFromDeadOwner: Bool {
        local.withLock { $0.lastLockRecoveredFromDeadOwner }
    }

    private func didAcquireWriter(thread: Int64, recovered: Bool) {
        mapping.storeInt32(LockFileLayout.writerPIDOffset, ownPID)
        mapping.storeInt32(LockFileLayout.writerThreadOffset, Int32(truncatingIfNeeded: thread))
        mapping.store64(LockFileLayout.writerSinceOffset, wallClockNanoseconds())
        local.withLock { state in
            state.writerThread = thread
            state.lastLockRecoveredFromDeadOwner = recovered
        }
    }

    func clearWriterRecord() {
        mapping.store64(LockFileLayout.writerSinceOffset, 0)
        mapping.storeInt32(LockFileLayout.writerThreadOffset, 0)
        mapping.storeInt32(LockFileLayout.writerPIDOffset, 0)
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
