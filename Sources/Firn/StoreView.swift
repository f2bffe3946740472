import FirnCore

/// What an app may see of the engine file under a `Database`: its versions,
/// its pins and read-only snapshots. Nothing here writes, publishes a
/// version or takes the writer lock: writes go through the `Database`, so
/// its notifications, pins and async-write queue stay in step.
public struct StoreView: Sendable {
    let store: Store

    /// The database file's path.
    public var path: String { store.path }

    /// The latest committed version of the file (any process's commit).
    public var currentVersion: UInt64 {
        get throws(FirnError) { try store.currentVersion }
    }

    /// The newest version known to survive power loss.
    public var durableVersion: UInt64 {
        get throws(FirnError) { try store.durableVersion }
    }

    /// Every live pin of the file, in every process (what `firn pins` lists).
    public func pins() -> [PinRecord] { store.pins() }

    /// A pinned snapshot of the latest version (see `Store.snapshot`).
    public func snapshot(kind: PinKind = .read, label: String = "") throws(FirnError) -> Snapshot {
        try store.snapshot(kind: kind, label: label)
    }

    /// A pinned snapshot of an older `version` while it is still readable.
    public func snapshot(version: UInt64, kind: PinKind = .tool, label: String = "") throws(FirnError) -> Snapshot {
        try store.snapshot(version: version, kind: kind, label: label)
    }
}
