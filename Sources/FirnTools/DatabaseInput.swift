import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Opening a database the way the read-only commands do: checked first
/// (missing, a directory, a FIFO: a clear error without opening it), then
/// `Store.open(readOnly: true)`, which creates nothing. The snapshot is
/// pinned (kind `tool`) when a usable lock file exists; otherwise it is
/// read without a pin and `note` says whether that matters.
package struct ReadAccess {
    package let store: Store
    package let snapshot: Snapshot
    /// Set when the read is not pinned: says why, and whether a writer
    /// could be active (a lock file exists but is not writable or not valid).
    package let note: String?
    package var pinned: Bool { snapshot.isPinned }

    /// Opens `path` read-only and takes a snapshot of `version` (default:
    /// current); `forVerify` as in `DatabaseInput.openReadOnly`.
    /// `defersCheck` (verify of the current version): the open-time
    /// check's walk is left to the verifier (`StoreOptions.defersOpenCheck`);
    /// `store.openCheck.checkDeferred` then says whether it was.
    package static func open(_ path: String, version: UInt64? = nil, kind: PinKind = .tool,
                            label: String, forVerify: Bool = false, defersCheck: Bool = false) throws(FirnError) -> ReadAccess {
        let store = try DatabaseInput.openReadOnly(path, forVerify: forVerify, defersCheck: defersCheck && version == nil)
        let snapshot: Snapshot
        do throws(FirnError) {
            if let version {
                snapshot = try store.snapshot(version: version, kind: kind, label: label)
            } else {
                snapshot = try store.deferredCheckSnapshot(kind: kind, label: label)
            }
        } catch {
            store.close()
            throw error
        }
        return ReadAccess(store: store, snapshot: snapshot, note: DatabaseInput.unpinnedNote(store))
    }

    package func close() {
        snapshot.close()
        store.close()
    }

    /// For `verify`, when `version` (default: the current one) cannot be
    /// read: if a commit frame of the log of its checkpoint (the newest
    /// record at or below it that made a region) checks out but cannot be
    /// applied, no reader reads that log's versions (a reader applies every
    /// frame it has read, FORMAT.md 8.2), and this opens the checkpoint
    /// itself instead, so its pages and the log are still checked. Returns
    /// it with the version that could not be read; nil when the log is not
    /// why (the caller reports its own error).
    static func openCheckpointOfUnreadableLog(
        _ path: String, version: UInt64?, label: String
    ) throws(FirnError) -> (access: ReadAccess, version: UInt64)? {
        let store = try DatabaseInput.openReadOnly(path, forVerify: true)
        do throws(FirnError) {
            let slots = try store.readSlots()
            // What the open wanted: the version asked for, the one the lock
            // file publishes, or the one a first opener takes (the slots'
            // current record's log's durable version; the scan does not
            // need the frames applied).
            let wanted: UInt64
            if let version {
                wanted = version
            } else if let published = store.lockFile?.latestVersion, published != 0 {
                wanted = published
            } else if let current = slots.current {
                wanted = try store.inspectLog(of: current)?.durableVersion ?? current.version
            } else {
                store.close()
                return nil
            }
            let records = slots.slots.compactMap { try? $0.get() }
            guard let record = records.filter({ $0.version <= wanted && $0.hasLogRegion })
                      .max(by: { $0.version < $1.version }),
                  try store.inspectLog(of: record)?.unapplied != nil,
                  let snapshot = try store.checkpointSnapshot(record, kind: .tool, label: label) else {
                store.close()
                return nil
            }
            return (ReadAccess(store: store, snapshot: snapshot, note: DatabaseInput.unpinnedNote(store)), wanted)
        } catch {
            store.close()
            throw error
        }
    }
}

extension ReadAccess {
    /// Why a try with the open-time check deferred cannot stand: its result
    /// would rest on the unchecked newest record (a compaction skipped by
    /// `--dry-run` or `--if-free-over` reports that record's figures).
    package struct NeedsOpenCheck: Error {}

    /// `work` on the current version, first (when `eligible`) with the
    /// source's open-time check left to `work`'s own reads
    /// (`open(defersCheck:)`): for a tool whose pass reads and checks every
    /// page of the version, space tree included (`compact -o`, `export` to a
    /// file). A damaged page (`.corrupt`) or `NeedsOpenCheck` ends that try,
    /// which must keep nothing, and `work` runs again as any open chooses
    /// the version: the check may reject the newest record, and the previous
    /// version is then the one worked on.
    package static func deferringCheck<R>(if eligible: Bool, _ work: (_ defersCheck: Bool) throws -> R) throws -> R {
        if eligible {
            do {
                return try work(true)
            } catch is NeedsOpenCheck {
            } catch let error as FirnError {
                guard case .corrupt = error else { throw error }
            }
        }
        return try work(false)
    }
}

package enum DatabaseInput {
    /// Refuses what is not a regular file before anything opens it (opening
    /// a FIFO would wait for a writer).
    package static func checkRegularFile(_ path: String) throws(FirnError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw FirnError.notFound(path: path, detail: "no such file") }
            throw FirnError.io(path: path, operation: "stat", errno: code)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw FirnError.notFound(path: path, detail: "is a directory, not a database file")
        case S_IFIFO: throw FirnError.notFound(path: path, detail: "is a FIFO, not a database file")
        default: throw FirnError.notFound(path: path, detail: "is not a regular file")
        }
    }

    /// Every page the store's snapshots read is checked against its
    /// reference (`StoreOptions.checksPages`): a damaged page fails the
    /// command (65) instead of being shown or copied. `forVerify` instead
    /// keeps the pages the open-time check proved, so `verify` does not
    /// compute their checksums a second time (it checks every page itself
    /// and reports each finding rather than stopping at the first).
    /// `ownOutput`: a file this process just wrote and synced that nobody
    /// else can have open, verified next (`StoreOptions.skipsOpenCheck`).
    /// `defersCheck`: `StoreOptions.defersOpenCheck` (verify of the current version).
    package static func openReadOnly(_ path: String, forVerify: Bool = false, ownOutput: Bool = false,
                                     defersCheck: Bool = false) throws(FirnError) -> Store {
        try checkRegularFile(path)
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        options.skipsOpenCheck = ownOutput
        options.defersOpenCheck = defersCheck
        options.keepOpenCheckPages = forVerify
        options.checksPages = !forVerify
        return try Store.open(path, options: options)
    }

    /// Opens for writing (load, hold, in-place compaction), creating the
    /// file only when `create`.
    package static func openWritable(_ path: String, create: Bool, lockTimeout: Double?) throws(FirnError) -> Store {
        if !create || fileExists(path) { try checkRegularFile(path) }
        var options = StoreOptions()
        options.create = create
        options.lockTimeout = lockTimeout.map { .nanoseconds(timeoutNanoseconds(seconds: $0)) }
        // What `load` reads of the version it builds on is checked too.
        options.checksPages = true
        return try Store.open(path, options: options)
    }

    /// The note for a read without a pin, or nil when it is pinned or no
    /// lock file exists (a writer always has one).
    static func unpinnedNote(_ store: Store) -> String? {
        guard store.lockFile == nil else { return nil }
        guard fileExists(store.path + ".lock") else {
            return "read without a pin (no lock file: no process has the database open)"
        }
        return "read without a pin: the lock file \(store.path).lock is not usable (read-only or not valid); "
            + "a writer could be active and reuse pages while this runs"
    }

    /// Whether the name `path` is taken (a dangling link too).
    package static func fileExists(_ path: String) -> Bool { SystemCall.exists(path, followingLinks: false) }
}
