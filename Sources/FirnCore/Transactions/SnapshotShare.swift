import Synchronization

/// One holder's share of a snapshot that many holders in a process share:
/// all shares of one version and pin kind of a store use one snapshot and
/// one pin, released with the last share (`release()` or deinit). This is
/// how all frozen values of one version share one `frozen` pin. Sendable:
/// shares and the snapshot may be used from any thread.
public final class SnapshotShare: Sendable {
    public let snapshot: Snapshot
    private let registry: SnapshotShares
    private let key: SnapshotShares.Key
    private let released = Atomic<Bool>(false)
    /// Resolved once: every frozen object made and released adds to it
    /// (holders on many threads keep a copy: reading it here made each of
    /// them retain this shared object per object).
    package let frozenObjects: FrozenObjectCounter?

    init(snapshot: Snapshot, registry: SnapshotShares, key: SnapshotShares.Key) {
        self.snapshot = snapshot
        self.registry = registry
        self.key = key
        frozenObjects = snapshot.frozenObjectCounter
    }

    deinit { release() }

    public var version: UInt64 { snapshot.version }

    /// Gives up this share; the pin goes with the last one. Idempotent.
    public func release() {
        let (exchanged, _) = released.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent)
        if exchanged { registry.release(key) }
    }

    /// Adds `delta` (which may be negative) to the shared pin's count of
    /// frozen objects. Exact under concurrent holders: an atomic add in the
    /// lock file (in the calling thread's stripe).
    public func addFrozenObjects(_ delta: Int64) {
        frozenObjects?.add(delta)
    }
}

/// The shared snapshots of one store, by version and pin kind, with the
/// number of shares of each.
final class SnapshotShares: Sendable {
    struct Key: Hashable, Sendable {
        let version: UInt64
        let kind: PinKind
    }

    private struct Entry {
        let snapshot: Snapshot
        var shares: Int
    }

    private let entries = Locked<[Key: Entry]>([:])

    /// A share of the snapshot of `fresh.version`: `fresh` itself when no
    /// share of that version exists yet, otherwise the existing snapshot
    /// (and `fresh` is closed).
    func share(_ fresh: Snapshot, kind: PinKind) -> SnapshotShare {
        let key = Key(version: fresh.version, kind: kind)
        let (snapshot, duplicate) = entries.withLock { entries -> (Snapshot, Bool) in
            if var entry = entries[key] {
                entry.shares += 1
                entries[key] = entry
                return (entry.snapshot, true)
            }
            entries[key] = Entry(snapshot: fresh, shares: 1)
            return (fresh, false)
        }
        if duplicate { fresh.close() }
        return SnapshotShare(snapshot: snapshot, registry: self, key: key)
    }

    /// The existing snapshot of `key`, with one more share, if any.
    func existing(_ key: Key) -> SnapshotShare? {
        let snapshot = entries.withLock { entries -> Snapshot? in
            guard var entry = entries[key] else { return nil }
            entry.shares += 1
            entries[key] = entry
            return entry.snapshot
        }
        return snapshot.map { SnapshotShare(snapshot: $0, registry: self, key: key) }
    }

    func release(_ key: Key) {
        let last = entries.withLock { entries -> Snapshot? in
            guard var entry = entries[key] else { return nil }
            entry.shares -= 1
            if entry.shares > 0 {
                entries[key] = entry
                return nil
            }
            entries[key] = nil
            return entry.snapshot
        }
        last?.close()
    }

    /// How many shares the snapshot of `key` has (0 when none).
    func shareCount(_ key: Key) -> Int { entries.withLock { $0[key]?.shares ?? 0 } }
}

extension Store {
    /// A share of the one snapshot of `version` (default: the latest) with
    /// pin kind `kind` that every holder in this process shares: the first
    /// share pins it (labelled `label`), the last one released unpins it.
    /// An older `version` must still be readable (see `snapshot(version:)`).
    public func sharedSnapshot(version: UInt64? = nil, kind: PinKind = .frozen, label: String = "") throws(FirnError) -> SnapshotShare {
        try checkOpen()
        if let version, let share = shares.existing(.init(version: version, kind: kind)) { return share }
        let fresh: Snapshot
        if let version {
            fresh = try snapshot(version: version, kind: kind, label: label)
        } else {
            fresh = try snapshot(kind: kind, label: label)
        }
        return shares.share(fresh, kind: kind)
    }
}
