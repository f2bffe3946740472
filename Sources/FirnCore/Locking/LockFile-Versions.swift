#if canImport(Glibc)
import Glibc
#endif
import CFirnShims

/// Version publication and change notification: the writer stores the
/// latest version and bumps a futex word; readers in any process wait on
/// that word. A waiter reads `changeCounter` first, then checks the version,
/// then calls `waitForChange(after:)`, so a publication between its check
/// and its wait is never missed.
extension LockFile {
    /// The latest published version (0 until one is published).
    package var latestVersion: UInt64 {
        mapping.load64(LockFileLayout.latestVersionOffset)
    }

    /// The change counter, bumped by every `publish(version:)` (and by
    /// `wakeWaiters`, which publishes nothing).
    package var changeCounter: UInt32 {
        mapping.load32(LockFileLayout.changeCounterOffset)
    }

    /// Publishes `version` as the latest unless a later one already is, and
    /// wakes every waiter. Monotonic: an opener that read the commit slots
    /// before a writer's commit can never move the published version back
    /// under it (which would let a compaction pack an old version).
    /// `durable` also records it as durable (`publishDurable`), with one
    /// wake for both.
    package func publish(version: UInt64, durable: Bool = false) {
        guard !isClosed else { return }
        let latest = raise(LockFileLayout.latestVersionOffset, to: version)
        let durableRaised = durable && raise(LockFileLayout.durableVersionOffset, to: version)
        if latest || durableRaised { notifyChange() }
    }

    /// Publishes `version` only when nothing is published yet (the lock
    /// file was just initialized): the version a first opener accepted with
    /// the open-time check. Two first openers accept the same version; a
    /// later writer's publication is never overwritten. True when stored.
    @discardableResult
    package func publishInitial(version: UInt64) -> Bool {
        guard !isClosed,
              mapping.cas64(LockFileLayout.latestVersionOffset, expected: 0, desired: version) else { return false }
        notifyChange()
        return true
    }

    /// The newest version known to be durable (0 = not known yet). Lags
    /// `latestVersion` while a group of deferred commits is open.
    package var durableVersion: UInt64 {
        mapping.load64(LockFileLayout.durableVersionOffset)
    }

    /// Records that `version` (and every version before it) is durable,
    /// unless a later one already is, and wakes every waiter (the same
    /// futex word as `publish`). Monotonic like `publish`.
    package func publishDurable(version: UInt64) {
        guard !isClosed else { return }
        if raise(LockFileLayout.durableVersionOffset, to: version) { notifyChange() }
    }

    /// Publishes `version` even when it is lower than the published one:
    /// only for a data file replaced at its path (see `didReplaceDataFile`).
    /// The replacement was synced before its rename, so it is durable too.
    func republish(version: UInt64) {
        guard !isClosed else { return }
        mapping.store64(LockFileLayout.latestVersionOffset, version)
        mapping.store64(LockFileLayout.durableVersionOffset, version)
        notifyChange()
    }

    /// Wakes every waiter of `waitForChange` without publishing a version:
    /// bumps the change counter, so a waiter that read the counter before
    /// and is only now going to sleep returns at once (a bare wake would be
    /// lost on it). Waiters in other processes wake, see no new version and
    /// wait again.
    package func wakeWaiters() {
        guard !isClosed else { return }
        notifyChange()
    }

    /// Stores `value` at `offset` unless the word already holds as much;
    /// true when it stored.
    private func raise(_ offset: Int, to value: UInt64) -> Bool {
        while true {
            let current = mapping.load64(offset)
            guard value > current else { return false }
            if mapping.cas64(offset, expected: current, desired: value) { return true }
        }
    }

    /// Bumps the change counter and wakes everyone sleeping on it.
    private func notifyChange() {
        mapping.add32(LockFileLayout.changeCounterOffset, 1)
        mapping.wake(LockFileLayout.changeCounterOffset, countedIn: LockFileLayout.changeWaitersOffset)
    }

    /// Waits until the change counter differs from `counter`, at most
    /// `timeout`. True when it changed, false on timeout.
    package func waitForChange(after counter: UInt32, timeout: Duration) -> Bool {
        let deadline = monotonicNanoseconds() &+ UInt64(LockClock.nanoseconds(timeout))
        while true {
            if mapping.load32(LockFileLayout.changeCounterOffset) != counter { return true }
            if isClosed { return false }
            let now = monotonicNanoseconds()
            guard now < deadline else { return false }
            mapping.wait(LockFileLayout.changeCounterOffset, expected: counter,
                         countedIn: LockFileLayout.changeWaitersOffset, nanoseconds: Int64(clamping: deadline - now))
        }
    }
}

