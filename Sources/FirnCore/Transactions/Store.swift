#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An open Firn database: lock-free snapshots pinned at a version, and one
/// write transaction at a time across threads and processes.
///
/// ```swift
/// let store = try Store.open("app.firn")
/// try store.write { txn in try txn.tree("users")?.put(key, value) }
/// let snapshot = try store.snapshot()
/// let value = try snapshot.tree("users")?.get(key)
/// ```
public final class Store: @unchecked Sendable {
    public let path: String
    public let options: StoreOptions
    package let geometry: PageGeometry
    /// The lock file (reader table, writer lock), or nil for a read-only
    /// store that found none it could use: its snapshots are not pinned.
    package let lockFile: LockFile?
    let io: any FileIO
    /// The device and inode of the file `io` has open, as the open proved it
    /// was the file at `path` and the lock file's.
    let dataFile: DataFileIdentity
    /// The commit slots as this open found them, after the open-time check
    /// of the newest record when this open ran it (FORMAT.md 2.1): the first
    /// opener after a crash or reboot (it initialized the lock file) and
    /// every open without a lock file. `openCheck.pagesChecked` counts the
    /// pages the check read.
    package let openCheck: CommitSlots
    /// The last open-time check this store made (first the open's): a later
    /// check of the same newest record reuses its verdict instead of reading
    /// that record's pages again (they can be a whole bulk-loaded file).
    private let lastCheck: Locked<CommitSlots>

    private struct State {
        var closed = false
        /// Pinned snapshots and write transactions still alive: the lock
        /// file (their pins, the writer lock) and the file stay open until
        /// the last of them ends, even after `close()`.
        var users = 0
        /// True once the lock file and the file have been closed.
        var released = false
        /// Why the store refuses use until reopened, once a failed commit
        /// could not be undone.
        var undoFailure: FirnError?
    }
    private let state: Locked<State>
    /// Snapshots shared by many holders (`sharedSnapshot`).
    let shares = SnapshotShares()
    /// The buffer each commit reads both commit slots into, kept: allocated
    /// and freed per commit, it sat at the top of the heap and made glibc
    /// trim and regrow the heap every few commits (page faults, measured).
    let slotReadBuffer = Locked<[UInt8]>([])
    /// How many run pages (`PageAllocator.Kind.run`) this store's recent
    /// commits allocated: the next commit looks for a free run as long as
    /// the longest of them first, since successive commits tend to be alike.
    let runHint = Locked(RecentRunLengths())
    /// The nodes this store's last commit wrote (`WrittenNodes`), taken by
    /// the next write transaction.
    let writtenNodes = Locked<WrittenNodes?>(nil)
    /// The data file's map, grown as the file grows.
    let file: MappedFile
    /// The commit log: its chains, the writer's place in it, the deferred
    /// frames kept in memory and their publication, the seal.
    let log: CommitLog
    /// The open group of deferred commits, which keeps the writer byte
    /// between its transactions; nil without a lock file (read-only).
    package let group: OpenGroup?
    /// When a commit on the log is a frame and when a checkpoint.
    var checkpointPolicy: CheckpointPolicy { log.policy }

    public var pageSize: Int { geometry.pageSize }

    private init(path: String, options: StoreOptions, geometry: PageGeometry, lockFile: LockFile?, io: any FileIO,
                 dataFile: DataFileIdentity, map: Mapping, openCheck: CommitSlots) {
        self.path = path
        self.dataFile = dataFile
        self.openCheck = openCheck
        lastCheck = Locked(openCheck)
        self.options = options
        self.geometry = geometry
        self.lockFile = lockFile
        self.io = io
        let file = MappedFile(path: path, io: io, pageSize: geometry.pageSize, map: map)
        let log = CommitLog(file: file, geometry: geometry, options: options, lockFile: lockFile)
        self.file = file
        self.log = log
        group = lockFile.map { OpenGroup(lockFile: $0, log: log) }
        state = Locked(State())
    }

    deinit {
        // Snapshots and transactions hold the store: none is left here.
        close()
        releaseResources()
    }

    /// Opens (and, with `options.create`, creates) the database at `path`.
    ///
    /// The file opened is proven to be the one at `path` once the session
    /// lock is held: in-place replacement (compaction, import) renames a new
    /// file over the path only while holding the database exclusively, so a
    /// descriptor that still names the file at `path` after our session
    /// lock was granted cannot be replaced under us. A file replaced between
    /// our open and our session lock is opened again; one replaced over and
    /// over is `.busy`.
    public static func open(_ path: String, options: StoreOptions = StoreOptions()) throws(FirnError) -> Store {
        guard options.commitLogPages == 0 || StoreOptions.commitLogPageRange.contains(options.commitLogPages) else {
            throw FirnError.invalidArgument(
                "commitLogPages \(options.commitLogPages) is neither 0 (no commit log) nor "
                + "\(StoreOptions.commitLogPageRange.lowerBound)…\(StoreOptions.commitLogPageRange.upperBound)")
        }
        if options.create && !options.readOnly && !SystemCall.exists(path, followingLinks: true) {
            guard PageGeometry.isValidPageSize(options.pageSize) else {
                throw FirnError.invalidArgument(
                    "page size \(options.pageSize) is not a power of two from \(PageGeometry.minPageSize) to \(PageGeometry.maxPageSize)")
            }
            try FileCreation.create(path: path, pageSize: options.pageSize)
        }
        for attempt in 0..<replacedWhileOpeningRetries {
            if let store = try openOnce(path, options: options) { return store }
            // Replaced between our open and our session lock: the replacer
            // has finished (it held the database exclusively), so the next
            // attempt normally succeeds at once.
            usleep(UInt32(min(1 << attempt, 64)) * 1_000)
        }
        throw FirnError.busy(
            path: path,
            detail: "the database file was replaced \(replacedWhileOpeningRetries) times while opening it (in-place compaction or import running in a loop?)")
    }

    private static let replacedWhileOpeningRetries = 20

    /// One attempt of `open`: nil when the file opened is no longer the one
    /// at `path` (or not the one the lock file belongs to).
    private static func openOnce(_ path: String, options: StoreOptions) throws(FirnError) -> Store? {
        let base = try POSIXFile(path: path, writable: !options.readOnly)
        let io = options.wrapIO?(base) ?? base
        var lockFile: LockFile? = nil
        let store: Store
        do throws(FirnError) {
            var slots = try CommitSlots.read(io)
            guard let newest = slots.newest else {
                throw FirnError.corrupt(path: path, page: nil, version: nil, detail: "neither commit slot is valid")
            }
            lockFile = try LockFile.open(
                databasePath: path, readerSlots: options.readerSlots,
                mode: options.readOnly ? .readOnlyExisting : .readWrite)
            let opened = DataFileIdentity.of(descriptor: base.descriptor)
            guard opened.isKnown, opened == DataFileIdentity.of(path: path),
                  !(lockFile?.dataFileIdentity.conflicts(with: opened) ?? false) else {
                lockFile?.close()
                io.close()
                return nil
            }
            // Who chooses the current version (FORMAT.md 2.1): the first
            // opener (it found nobody else with the database open, so the
            // last writer may have lost power mid-commit) and every open
            // without a lock file run the check; later openers trust the
            // version published in the lock file, and never publish a record
            // nobody checked.
            let map = try Mapping(descriptor: io.descriptor, length: Mapping.reservation(forFileSize: try io.size()), path: path)
            if lockFile == nil || lockFile?.latestVersion == 0 {
                // Read again now that our session holds the lock file: a
                // writer that committed after our first read and has since
                // exited left a newer record, and publishing the older one
                // would let a compaction pack it and drop that commit.
                let read = try CommitSlots.read(io)
                if options.skipsOpenCheck && lockFile == nil {
                    slots = read.takenAsChecked()
                } else if options.defersOpenCheck && options.readOnly {
                    slots = read.deferringWalk(io)
                } else {
                    slots = read.validated(io, keepingCheckedPages: options.keepOpenCheckPages)
                }
            }
            store = Store(
                path: path, options: options, geometry: PageGeometry(pageSize: Int(newest.pageSize)),
                lockFile: lockFile, io: io, dataFile: opened, map: map, openCheck: slots)
        } catch {
            lockFile?.close()
            io.close()
            throw error
        }
        // From here the store owns the lock file and the file: an error
        // closes them as it goes.
        // A deferred check publishes nothing until the verifier's walk
        // accepts the record (`acceptDeferredCheck`).
        if !store.openCheck.checkDeferred { try store.publishAccepted(store.openCheck) }
        return store
    }

    /// Publishes the version `slots` make current as a first opener does:
    /// the durable frame of its log when it has one, synced first.
    func publishAccepted(_ slots: CommitSlots) throws(FirnError) {
        if let lockFile, let accepted = slots.current, slots.isValidated {
            // A checkpoint with a log: its durable frame is current
            // (FORMAT.md 8.2). Frames after it are a group whose durability
            // point never came; a writer starts a new region rather than
            // chain to them.
            var current = accepted.version
            if let scan = try log.frames(of: accepted) { current = scan.durableVersion }
            // Only over 0: a writer may already have committed on top of
            // a version another first opener published.
            // Durable only once synced: after a crash of a process (not
            // of the machine) the dead writer's pages and record may
            // still be only in the page cache — the check accepts them,
            // and claiming them durable unsynced would let a
            // `waitForDurable` return for a version a power loss then
            // takes back. Syncing a clean file costs next to nothing.
            // A failing sync leaves the durable version unknown (0)
            // instead of failing the open: the data is readable, and
            // the next durable commit or `sync()` meets the disk's
            // error itself, where the caller is asking for durability.
            if lockFile.publishInitial(version: current), (try? io.sync()) != nil {
                lockFile.publishDurable(version: current)
            }
        }
    }

    /// Closes the store: no new snapshots or transactions. Snapshots still
    /// alive keep their pins (and stay readable) and a write transaction
    /// still running keeps the writer lock until it ends; the lock file and
    /// the file are released with the last of them. Wakes `waitForCommit`.
    public func close() {
        let release = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.closed = true
            return s.users == 0
        }
        // A byte kept for an open group is not held past close, even while
        // snapshots keep the lock file open.
        group?.letKeptByteGo()
        lockFile?.wakeWaiters()
        if release { releaseResources() }
    }

    /// A pinned snapshot or a write transaction starts using the store
    /// (after `checkOpen`; its pin or lease keeps the lock file open).
    func addUse() {
        state.withLock { $0.users += 1 }
    }

    /// A pinned snapshot or write transaction ended; the last one after
    /// `close()` releases the lock file and the file.
    func endUse() {
        let release = state.withLock { s -> Bool in
            s.users -= 1
            return s.closed && s.users == 0
        }
        if release { releaseResources() }
    }

    /// Closes the lock file and the file, once (idempotent).
    private func releaseResources() {
        let first = state.withLock { s -> Bool in
            defer { s.released = true }
            return !s.released
        }
        guard first else { return }
        // Nothing uses the store now: deferred frames still in memory are
        // written and published before the writer byte goes with the lock file.
        try? log.writeKeptFrames()
        lockFile?.close()
        io.close()
    }

    /// True once `close()` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// The latest committed version.
    public var currentVersion: UInt64 {
        get throws(FirnError) {
            if let lockFile { return newestVersion(lockFile) }
            return try readSlots().current?.version ?? 0
        }
    }

    /// Every live pin of the file, in every process (what `firn pins`
    /// lists): empty when the store has no lock file (read-only, the lock
    /// file not writable) or is closed.
    public func pins() -> [PinRecord] { lockFile?.pins() ?? [] }

    /// The newest version known to survive power loss: the latest version,
    /// or, while a group of deferred commits is open, the version the group
    /// builds on. 0 when not known yet (a lock file published by a read-only
    /// first opener, until the next durable commit or `sync()`).
    public var durableVersion: UInt64 {
        get throws(FirnError) {
            if let lockFile { return lockFile.durableVersion }
            return try readSlots().current?.version ?? 0
        }
    }

    /// Both commit slots as they are on disk now, after the open-time check
    /// of the newest record (FORMAT.md 2.1): `current` is the version a
    /// reader without a lock file would choose. The check reads only the
    /// pages the newest record's commit wrote.
    package func readSlots() throws(FirnError) -> CommitSlots {
        checked(try CommitSlots.read(io))
    }

    /// `slots` after the open-time check, reusing the last verdict when the
    /// newest record is the one it judged.
    func checked(_ slots: CommitSlots) -> CommitSlots {
        let result = slots.validated(io, reusing: lastCheck.withLock { $0 })
        lastCheck.withLock { $0 = result }
        return result
    }

    // MARK: writing

    /// Begins the write transaction, waiting up to `timeout` (default: the
    /// store's `lockTimeout`) for the writer lock, in turn with the other
    /// writers of this store. The transaction is not tied to the thread
    /// that began it: send it to another to commit or abort it there.
    /// Blocks the calling thread: from async code, `await` `beginWrite`,
    /// which suspends instead.
    ///
    /// Why another name than the async variant's: the type checker ranks
    /// overloads as if top-level code (a `main.swift`) were never
    /// asynchronous, so a synchronous `beginWrite` overload won even in
    /// `try await store.beginWrite()` there, and the effects checker then
    /// rejected it as `noasync` (`@_disfavoredOverload` does not outrank the
    /// async/sync mismatch). With no synchronous overload, `beginWrite()`
    /// always means the async one.
    @available(*, noasync, message: "blocks the thread; use the async beginWrite")
    public func beginWriteBlocking(timeout: Duration? = nil) throws(FirnError) -> sending WriteTransaction {
        let lockFile = try writableLockFile()
        let lease = try lockFile.lockWriter(timeout: timeout ?? options.lockTimeout)
        return try startTransaction(lockFile: lockFile, lease: lease)
    }

    /// Begins the write transaction without blocking a thread: suspends
    /// until the writer lock is granted (in turn with the other writers of
    /// this store), at most `timeout` (default: the store's `lockTimeout`).
    /// A task cancelled before it got the lock throws `CancellationError`
    /// and never held it.
    public func beginWrite(timeout: Duration? = nil) async throws -> sending WriteTransaction {
        let lockFile = try writableLockFile()
        let lease = try await lockFile.lockWriter(timeout: timeout ?? options.lockTimeout)
        return try startTransaction(lockFile: lockFile, lease: lease)
    }

    /// Begins the write transaction only if no one else is writing.
    public func tryBeginWrite() throws(FirnError) -> sending WriteTransaction? {
        let lockFile = try writableLockFile()
        guard let lease = try lockFile.tryLockWriter() else { return nil }
        return try startTransaction(lockFile: lockFile, lease: lease)
    }

    func writableLockFile() throws(FirnError) -> LockFile {
        try checkOpen()
        guard let lockFile, !options.readOnly else {
            throw FirnError.misuse("\(path): the store is open read-only")
        }
        return lockFile
    }

    private func startTransaction(lockFile: LockFile, lease: WriterLease) throws(FirnError) -> WriteTransaction {
        addUse()
        do {
            return try WriteTransaction(store: self, lockFile: lockFile, lease: lease)
        } catch {
            endHold(lease, lockFile: lockFile)
            endUse()
            throw error
        }
    }

    /// Runs `body` in a write transaction and commits it; aborts if `body` throws.
    @discardableResult
    public func write<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        let txn = try beginWriteBlocking()
        do {
            let result = try body(txn)
            try txn.commit()
            return result
        } catch {
            txn.abort()
            throw error
        }
    }

    func checkOpen() throws(FirnError) {
        try state.withLock { (s) throws(FirnError) in
            if s.closed { throw FirnError.misuse("\(path): the store is closed") }
            if let error = s.undoFailure {
                throw FirnError.misuse("\(path): a failed commit could not be undone (\(error)); reopen the store")
            }
        }
        if let error = log.writeFailure {
            throw FirnError.misuse("\(path): deferred commits could not be written (\(error)); reopen the store")
        }
    }

    func markFailed(_ error: FirnError) {
        state.withLock { $0.undoFailure = error }
    }
}
