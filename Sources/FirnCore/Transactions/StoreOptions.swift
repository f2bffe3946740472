/// How a store is opened.
public struct StoreOptions: Sendable {
    /// Create the file when it does not exist.
    public var create: Bool = true
    /// Page size for a new file (a power of two from 4 KiB to 64 KiB).
    /// An existing file keeps the page size it was created with.
    public var pageSize: Int = PageGeometry.defaultPageSize
    public var durability: Durability = .full
    /// Reader-table slots in a new lock file.
    public var readerSlots: Int = 126
    /// Open without write access: no write transactions; no lock file is
    /// created, and snapshots are pinned only when a lock file exists and
    /// can be written.
    public var readOnly: Bool = false
    /// How long `write()` waits for the writer lock; nil waits forever.
    public var lockTimeout: Duration? = nil
    /// Wraps the file's I/O layer (tests record, drop and fail writes with it).
    /// Keep, for the store's life, which pages the open-time check proved
    /// (page, birth and checksum): `verify` then skips their checksums
    /// instead of computing each twice (after a bulk load that is every
    /// page). Costs an entry of a table per page checked.
    package var keepOpenCheckPages = false
    /// Skip the open-time check of the newest record (FORMAT.md 2.1) and
    /// take it as current: only for a file nobody else can have open,
    /// written and synced by this process, that a full verify reads next (a
    /// compaction's or an import's output before its rename). The
    /// verifier's walk checks every page the check would, against the same
    /// references, so the check would read the whole file a second time.
    /// Ignored when the file has a lock file: a version it publishes there
    /// must have been checked.
    package var skipsOpenCheck = false
    /// For `verify` of the current version, read-only: when this open would
    /// run the open-time check's walk of the newest record (no lock file, or
    /// nobody has published a version), take the record unread and publish
    /// nothing (`CommitSlots.checkDeferred`). The verifier's walk then reads
    /// each page once instead of twice; take its snapshot with
    /// `Store.deferredCheckSnapshot`, and call `Store.acceptDeferredCheck()`
    /// when it found nothing. On any finding, reopen without this option:
    /// the check then chooses the current version as any open does, and
    /// that version is the one verified.
    package var defersOpenCheck = false
    /// Check every page a snapshot reads against the reference that names
    /// it, checksum included (`PageSource.checkedVersion`): the toolkit's
    /// reads, so a damaged page fails `dump`, `compact` and `export` with
    /// 65 instead of being copied into a file that verifies clean. A
    /// writer checks the pages it builds on whatever this says.
    package var checksPages = false
    /// Wraps the store's file I/O (every write, sync and extension of the
    /// data file goes through it): to count what a workload writes, delay
    /// syncs, or inject faults in tests — SQLite's VFS shim, narrowed to
    /// one file. Nil: the file as it is.
    public var wrapIO: (@Sendable (any FileIO) -> any FileIO)? = nil
    /// Commits through the commit log (docs/COMMIT-PATH.md, FORMAT.md 8.2):
    /// each checkpoint makes a region of this many pages, and a small commit
    /// is one frame appended there (one sync, about one page written); a
    /// commit the region cannot take is a checkpoint, a copy-on-write commit
    /// of the log's changes and its own. 0 commits every version as a
    /// copy-on-write commit (two to seven pages). The default, 128 pages
    /// (512 KiB at 4 KiB pages), is the log. Frames free no pages until the
    /// next checkpoint (`Store.checkpoint()`, `firn checkpoint`). The log
    /// also checkpoints once its frames would make the checkpoint rewrite
    /// more than this many pages or a thirty-second of the trees' pages,
    /// whichever is more (those pages wait two checkpoints before reuse: the
    /// room the log costs the file), and such a checkpoint makes a region of
    /// a quarter of this size. A store
    /// that opens a file with a log reads it, whatever this says; with 0 its
    /// next commit is a checkpoint without a region.
    public var commitLogPages: UInt32 = 128
    /// The region sizes `commitLogPages` may ask for besides 0: a region is
    /// allocated whole at each checkpoint, so its size is bounded (65 536
    /// pages is 256 MiB at 4 KiB pages).
    public static let commitLogPageRange: ClosedRange<UInt32> = 1...65_536
    /// Whether the log checkpoints once its frames carry more entries than
    /// a checkpoint should rewrite (`CheckpointPolicy.entryBudget`); off, only
    /// a full region or a large transaction makes a checkpoint (tests that
    /// walk a region to its end).
    package var checkpointsOnEntryBudget = true
    /// Whether a deferred commit's frame waits in memory until its group's
    /// durability point, the writer byte going to another writer, 2 ms, or
    /// 64 KiB of frames (FORMAT.md 8.1); off, each is written at once and
    /// other processes see it at once (tests of the frame-at-a-time path).
    package var keepsDeferredFramesInMemory = true

    public init() {}
}

/// When a commit is durable.
public enum Durability: String, Sendable, Codable {
    /// One fdatasync per commit, after the new pages and the commit record
    /// are written. A commit that returned survives power loss; a power loss
    /// during the sync leaves the commit whole or absent: the record is
    /// accepted at open only if every page born in its version checks out
    /// against its Merkle reference (FORMAT.md 2.1).
    case full
    /// Two fdatasyncs per commit: the new pages, then the commit record, so
    /// the record never reaches the disk before its pages. For devices or
    /// file systems whose sync is not trusted to cover writes issued before
    /// it as a whole; costs one more sync per commit.
    case twoPhase
    /// No syncs: a commit survives a crash of the process, but not an OS
    /// crash or power loss — then the file can be left corrupt (pages freed
    /// by a commit that never reached the disk may already be reused). For
    /// scratch data, bulk loads you can redo, and benchmarks.
    case none
}
