#if canImport(Glibc)
import Glibc
#endif

/// Opening a database the way the read-only commands do: checked first
/// (missing, a directory, a FIFO: a clear error without opening it), then
/// `Store.open(readOnly: true)`, which creates nothing. The snapshot is
/// pinned (kind `tool`) when a usable lock file exists; otherwise it is
/// read without a pin and `note` says whether that matters.
public struct ReadAccess {
    public let store: Store
    public let snapshot: Snapshot
    /// Set when the read is not pinned: says why, and whether a writer
    /// could be active (a lock file exists but is not writable or not valid).
    public let note: String?
    public var pinned: Bool { snapshot.isPinned }

    /// Opens `path` read-only and takes a snapshot of `version` (default:
    /// current); `forVerify` as in `DatabaseInput.openReadOnly`.
    public static func open(_ path: String, version: UInt64? = nil, kind: PinKind = .tool,
                            label: String, forVerify: Bool = false) throws(FirnError) -> ReadAccess {
        let store = try DatabaseInput.openReadOnly(path, forVerify: forVerify)
        let snapshot: Snapshot
        if let version {
            snapshot = try store.snapshot(version: version, kind: kind, label: label)
        } else {
            snapshot = try store.snapshot(kind: kind, label: label)
        }
        return ReadAccess(store: store, snapshot: snapshot, note: DatabaseInput.unpinnedNote(store))
    }

    public func close() {
        snapshot.close()
        store.close()
    }
}

public enum DatabaseInput {
    /// Refuses what is not a regular file before anything opens it (opening
    /// a FIFO would wait for a writer).
    public static func checkRegularFile(_ path: String) throws(FirnError) {
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

    /// `forVerify` keeps the pages the open-time check proved, so `verify`
    /// does not compute their checksums a second time.
    public static func openReadOnly(_ path: String, forVerify: Bool = false) throws(FirnError) -> Store {
        try checkRegularFile(path)
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        options.keepOpenCheckPages = forVerify
        return try Store.open(path, options: options)
    }

    /// Opens for writing (load, hold, in-place compaction), creating the
    /// file only when `create`.
    public static func openWritable(_ path: String, create: Bool, lockTimeout: Double?) throws(FirnError) -> Store {
        if !create || fileExists(path) { try checkRegularFile(path) }
        var options = StoreOptions()
        options.create = create
        options.lockTimeout = lockTimeout.map { .nanoseconds(timeoutNanoseconds(seconds: $0)) }
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

    package static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
