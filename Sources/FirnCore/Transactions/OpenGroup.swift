import Dispatch
import Synchronization

/// A store's open group of deferred commits (FORMAT.md 8.1,
/// docs/COMMIT-PATH.md "Grouped commits and durability"). Between the
/// group's transactions it keeps the cross-process writer byte locked
/// (`LockFile.unlockWriter(_:keptBy:)`: two `fcntl`s per grouped commit
/// saved), and on the commit log the group's frames wait in memory
/// (`CommitLog.keep`). It decides when the byte goes, and has the kept
/// frames written before it does — whoever takes the byte next reads the
/// log from the file:
/// - at a transaction's end, instead of keeping it, when a writer elsewhere
///   (another process, or another `LockFile` of this one) waits for it;
/// - by the watch, when such a writer comes while the byte is kept, or
///   when the group goes `idleNanoseconds` (2 ms) without a commit: an idle
///   open group keeps nothing;
/// - at once when the lock layer says another `LockFile` of this process
///   found it taken (`keptWriterByteWanted`);
/// - when the store closes, and at the group's durability point (a lock
///   taken for `sync()` takes the byte over).
package final class OpenGroup: KeptWriterByteHolder, @unchecked Sendable {
    private let lockFile: LockFile
    private let log: CommitLog
    /// How long a kept byte may go without a commit of its group before the
    /// watch lets it go, and how often the watch looks for writers waiting
    /// elsewhere (nanoseconds). Tests lengthen it to observe a kept byte.
    package let idleNanoseconds = Atomic<UInt64>(2_000_000)

    private struct Watch {
        /// Releases that kept the byte, so far: the watch tells an idle
        /// group from a busy one by it.
        var keepingReleases: UInt64 = 0
        /// A look is scheduled.
        var armed = false
    }
    private let watch = Locked(Watch())

    init(lockFile: LockFile, log: CommitLog) {
        self.lockFile = lockFile
        self.log = log
    }

    /// Ends a transaction's hold of the writer lock: with `keepingByte`
    /// (it left the group open), keeps the byte for the group unless a
    /// writer elsewhere waits for it; otherwise writes the kept frames and
    /// lets the byte go. The release mark (`WriterLease.follows`), nil
    /// when `lease` was no longer held.
    func endHold(_ lease: WriterLease, keepingByte: Bool) -> UInt32? {
        guard keepingByte, !lockFile.writersWaitElsewhere else {
            // A failed write is remembered: the store refuses use.
            try? log.writeKeptFrames()
            return lockFile.unlockWriter(lease)
        }
        let mark = lockFile.unlockWriter(lease, keptBy: self)
        // After the byte is kept: a look that found it not kept has
        // disarmed the watch by now, and this arms it again.
        let arm = watch.withLock { watch -> Bool in
            watch.keepingReleases &+= 1
            defer { watch.armed = true }
            return !watch.armed
        }
        if arm { scheduleLook() }
        return mark
    }

    /// Lets a kept byte go (writing the kept frames first), unless a
    /// transaction of this store holds the lock (its end decides). True
    /// when it was let go here.
    @discardableResult
    func letKeptByteGo() -> Bool {
        lockFile.releaseKeptWriterByte {
            // A failed write is remembered: the store refuses use.
            try? log.writeKeptFrames()
        }
    }

    package func keptWriterByteWanted() -> Bool { letKeptByteGo() }

    /// Looks again after `idleNanoseconds`.
    private func scheduleLook() {
        let seen = watch.withLock { $0.keepingReleases }
        let interval = Int(clamping: idleNanoseconds.load(ordering: .relaxed))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(interval)) { [weak self] in
            self?.look(seen: seen)
        }
    }

    /// A kept byte goes when a writer elsewhere waits for it or no commit
    /// kept it since the last look; the watch goes on while the byte is
    /// kept, and stops otherwise until the next keeping release.
    private func look(seen: UInt64) {
        let releases = watch.withLock { $0.keepingReleases }
        if lockFile.keepsWriterByte && (releases == seen || lockFile.writersWaitElsewhere) {
            // Fails while a transaction holds the lock: its end decides.
            letKeptByteGo()
        }
        let watchOn = watch.withLock { watch -> Bool in
            if lockFile.keepsWriterByte { return true }
            watch.armed = false
            return false
        }
        if watchOn { scheduleLook() }
    }
}
