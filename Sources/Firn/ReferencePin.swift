import FirnCore

/// The pin of a `ThreadSafeReference` and its one resolution. A class so
/// that copies of the reference share them; the pin goes with the last copy.
final class ReferencePin: Sendable {
    let path: String
    let version: UInt64
    /// "File.swift:12", where the reference was made.
    let madeAt: String
    /// The `threadSafeReference` pin, until the reference is resolved.
    private let snapshot: Locked<Snapshot?>
    private let resolved = Locked(false)

    /// Pins the version `source` reads (for a live instance in a write: the
    /// version its write started from, while the reference refers to the one
    /// it commits), alongside the pin that already keeps it readable.
    init(source: any ObjectSource, madeAt: String) throws(DatabaseError) {
        let pinned: Snapshot
        switch source {
        case let core as DatabaseCore:
            core.checkAccess()
            version = try core.referenceVersion
            pinned = try core.readSnapshot
        case let frozen as FrozenVersion:
            version = frozen.version
            pinned = frozen.share.snapshot
        default:
            throw DatabaseError.engine(.misuse("a ThreadSafeReference needs a live or frozen database"))
        }
        let store = pinned.store
        path = store.path
        self.madeAt = madeAt
        // Another pin on a version pinned already: it adds no version, so
        // maximumNumberOfActiveVersions has nothing to check.
        let snapshot = try engine { () throws(FirnError) in
            try store.snapshot(alongside: pinned, kind: .threadSafeReference, label: madeAt)
        }
        self.snapshot = Locked(snapshot)
    }

    deinit { release() }

    /// Marks the reference resolved, once: false when it already was.
    func resolve() -> Bool {
        resolved.withLock { resolved in
            defer { resolved = true }
            return !resolved
        }
    }

    /// Releases the pin (idempotent).
    func release() {
        snapshot.withLock { snapshot in
            defer { snapshot = nil }
            return snapshot
        }?.close()
    }

    /// The pin's label: `#fileID:line`, without the module when that would
    /// not fit the reader slot's 64-byte label (the line must stay).
    static func label(_ file: StaticString, _ line: UInt) -> String {
        let fileID = "\(file)"
        let full = "\(fileID):\(line)"
        guard full.utf8.count > 64, let slash = fileID.lastIndex(of: "/") else { return full }
        return "\(fileID[fileID.index(after: slash)...]):\(line)"
    }
}
