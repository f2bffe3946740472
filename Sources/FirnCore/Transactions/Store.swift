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
                slots = try CommitSlots.read(io).validated(io, map: map, keepingCheckedPages: options.keepOpenCheckPages)
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
        let slots = store.openCheck
        if let lockFile = store.lockFile, let accepted = slots.current, slots.isValidated {
            // A checkpoint with a log: its durable frame is current
            // (FORMAT.md 8.2). Frames after it are a group whose durability
            // point never came; a writer starts a new region rather than
            // chain to them.
            var current = accepted.version
            if let scan = try store.log.frames(of: accepted) { current = scan.durableVersion }
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
            if lockFile.publishInitial(version: current), (try? store.io.sync()) != nil {
                lockFile.publishDurable(version: current)
            }
        }
        return store
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

    /// The durability point of grouped commits: makes every deferred commit
    /// since the last durable version durable with one fdatasync, and
    /// returns the durable version (the latest version). Takes the writer
    /// lock (waiting up to `timeout`, default the store's `lockTimeout`):
    /// it rewrites the newest record sealed into its own slot (FORMAT.md
    /// 8.1), or on the commit log appends a seal frame — or makes a
    /// checkpoint, one version past the latest, when the group carried the
    /// log past its entry budget or no seal fits (FORMAT.md 8.2). With
    /// nothing pending it returns at once.
    @discardableResult
    public func sync(timeout: Duration? = nil) throws(FirnError) -> UInt64 {
        let lockFile = try writableLockFile()
        if lockFile.durableVersion != 0, lockFile.durableVersion >= newestVersion(lockFile) { return lockFile.durableVersion }
        switch try syncHoldingWriterLock(lockFile, timeout: timeout) {
        case let .sealed(version):
            return version
        case .needsCheckpoint:
            // Under a lock of its own: a checkpoint is a commit. Then the
            // state is looked at again (another writer may have come first).
            try checkpoint(timeout: timeout)
            return try sync(timeout: timeout)
        }
    }

    /// Writes the latest version as a checkpoint: the changes its commit
    /// log holds go into the trees, the log starts empty, and the pages
    /// those changes replaced can be reused once no pin needs them. Frames
    /// free no pages until then (`firn info` shows a file's live bytes as
    /// its checkpoint's), so call this before measuring or compacting a
    /// file whose last commits were large. Returns the checkpoint's version
    /// (one past the latest, with the same contents), or the latest version
    /// when it is a checkpoint already or the file has no log. Takes the
    /// writer lock (waiting up to `timeout`, default `lockTimeout`).
    @discardableResult
    public func checkpoint(timeout: Duration? = nil) throws(FirnError) -> UInt64 {
        try beginWriteBlocking(timeout: timeout).commitCheckpoint()
    }

    /// `sync()`'s work under the writer lock: the log's seal
    /// (`CommitLog.seal`) or the newest record rewritten sealed.
    private func syncHoldingWriterLock(_ lockFile: LockFile, timeout: Duration?) throws(FirnError) -> CommitLog.Seal {
        try holdingWriterLock(lockFile, timeout: timeout) { (lease) throws(FirnError) -> CommitLog.Seal in
            try log.writeKeptFrames()
            let (slots, base, _) = try WriteTransaction.chooseBase(store: self, lockFile: lockFile)
            if let seal = try log.seal(base, published: lockFile.latestVersion, lease: lease, undoFailed: markFailed) {
                return seal
            }
            return .sealed(try sealRecord(base, slots: slots, lockFile: lockFile))
        }
    }

    /// Runs `body` holding the writer lock (waiting up to `timeout`,
    /// default `lockTimeout`) as a user of the store, for work that is not
    /// a write transaction (a seal, writing kept frames).
    func holdingWriterLock<R>(_ lockFile: LockFile, timeout: Duration?,
                              _ body: (WriterLease) throws(FirnError) -> R) throws(FirnError) -> R {
        let lease = try lockFile.lockWriter(timeout: timeout ?? options.lockTimeout)
        addUse()
        defer {
            endHold(lease, lockFile: lockFile)
            endUse()
        }
        return try body(lease)
    }

    /// Gives the writer lock `lease` back: the open group keeps the byte
    /// when `keepingByteForGroup` (a deferred commit left the group open)
    /// and no writer elsewhere waits; otherwise the frames kept in memory
    /// are written before the byte goes. Every release of a lock this
    /// store took goes through here. The release mark, nil when `lease`
    /// was no longer held.
    @discardableResult
    func endHold(_ lease: WriterLease, lockFile: LockFile, keepingByteForGroup: Bool = false) -> UInt32? {
        if let group { return group.endHold(lease, keepingByte: keepingByteForGroup) }
        return lockFile.unlockWriter(lease)
    }

    /// Rewrites the newest record sealed into its own slot (FORMAT.md 8.1).
    private func sealRecord(_ base: CommitRecord, slots: CommitSlots, lockFile: LockFile) throws(FirnError) -> UInt64 {
        guard base.unsealed, let index = slots.slotIndex(of: base.version) else {
            // Sealed already (made durable by a durable commit), or nothing
            // to seal; a sync covers a sealed record whose own sync is unknown.
            try io.sync()
            lockFile.publishDurable(version: base.version)
            return base.version
        }
        let offset = UInt64(index) * UInt64(geometry.pageSize)
        do {
            // `.twoPhase`: the group's pages are durable before a sealed
            // record can be.
            if options.durability == .twoPhase { try io.sync() }
            // On failure the unsealed record goes back: the group stays
            // pending and opens at its durable base, as before the call.
            try writeRecord(base.sealed.encoded(), at: offset, replacing: base.encoded(), sync: true)
        } catch {
            throw error.located(in: path, version: base.version)
        }
        lockFile.publishDurable(version: base.version)
        return base.version
    }

    /// Writes a commit record at `offset` (a slot) and, with `sync`, makes it
    /// durable. If the write or the sync fails, `previous` — the slot's bytes
    /// before — is written back and synced, so the file still opens as it
    /// did even after a reopen; if that fails too, the store is marked
    /// failed (it refuses further use until reopened).
    func writeRecord(_ record: [UInt8], at offset: UInt64, replacing previous: [UInt8], sync: Bool) throws(FirnError) {
        // A shorter record over a longer one (format 2 over 3) zeroes the
        // rest of the record area in the same small write: the slot page
        // is zero after its record (FORMAT.md 2).
        var record = record
        if previous.count > record.count, previous[record.count...].contains(where: { $0 != 0 }) {
            record += [UInt8](repeating: 0, count: previous.count - record.count)
        }
        try clearSlotPageTail(at: offset, from: max(record.count, CommitRecord.maximumSize))
        do {
            try withBytes(record) { (b) throws(FirnError) in try io.write(b, at: offset) }
            if sync { try io.sync() }
        } catch let failure {
            do {
                try withBytes(previous) { (b) throws(FirnError) in try io.write(b, at: offset) }
                try io.sync()
            } catch {
                markFailed(failure)
            }
            throw failure
        }
    }

    /// The writer owns the whole slot page it writes a record into: a stray
    /// byte past the record area (an empty slot's page is not checked by
    /// anyone) is zeroed before the record goes in, so it never outlives
    /// the commit. A separate write, and only when such a byte is there
    /// (read through the map): the record's own write stays one small
    /// write that a failure or a crash leaves whole or absent.
    private func clearSlotPageTail(at offset: UInt64, from start: Int) throws(FirnError) {
        let pageSize = geometry.pageSize
        guard start < pageSize else { return }
        let map = file.current
        let (end, overflow) = offset.addingReportingOverflow(UInt64(pageSize))
        guard !overflow, end <= UInt64(map.length) else { return }
        let tail = UnsafeRawBufferPointer(start: map.base + Int(offset) + start, count: pageSize - start)
        guard tail.contains(where: { $0 != 0 }) else { return }
        let zeros = [UInt8](repeating: 0, count: pageSize - start)
        try withBytes(zeros) { (b) throws(FirnError) in try io.write(b, at: offset + UInt64(start)) }
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

    // MARK: snapshots

    /// A snapshot of the latest version, pinned until it is closed (or
    /// released) so no writer reuses its pages.
    public func snapshot(kind: PinKind = .read, label: String = "") throws(FirnError) -> Snapshot {
        try checkOpen()
        guard let lockFile else {
            guard let record = try readSlots().current else {
                throw FirnError.corrupt(path: path, page: nil, version: nil, detail: "neither commit slot is valid")
            }
            // Nobody else is writing: the log's durable version is current
            // (FORMAT.md 8.2), as for a first opener.
            if let scan = try log.scan(of: record), scan.durableVersion > record.version,
               let link = try log.link(scan.durableVersion, of: record) {
                return try makeSnapshot(VersionInfo(record), pin: nil, log: link)
            }
            return try makeSnapshot(VersionInfo(record), pin: nil)
        }
        let pin = try lockFile.claimPin(version: newestVersion(lockFile), kind: kind, label: label)
        do {
            return try pinLatest(pin, lockFile: lockFile)
        } catch {
            lockFile.releasePin(pin)
            throw error
        }
    }

    /// Moves `snapshot`'s pin to the latest version without giving up its
    /// reader slot (a refresh), and returns the snapshot of that version,
    /// which now owns the pin; `snapshot` is no longer pinned. An unpinned
    /// snapshot gets a new unpinned one. On failure `snapshot` is closed:
    /// once its pin has moved, its old version may already have been
    /// reclaimed, so the pin cannot go back.
    public func refresh(_ snapshot: Snapshot) throws(FirnError) -> Snapshot {
        try checkOpen()
        guard let lockFile, let pin = snapshot.pin else {
            return try self.snapshot()
        }
        if snapshot.version == newestVersion(lockFile) { return snapshot }
        do {
            let refreshed = try pinLatest(pin, lockFile: lockFile)
            snapshot.detachPin()
            return refreshed
        } catch {
            snapshot.close()
            throw error
        }
    }

    /// The pin protocol on `pin`: set it to the latest version, then check
    /// the version is still the latest (a writer that reclaims space after
    /// that point sees the pin), and open the snapshot it protects.
    private func pinLatest(_ pin: PinSlot, lockFile: LockFile) throws(FirnError) -> Snapshot {
        for attempt in 0..<2 {
            for _ in 0..<10_000 {
                let version = newestVersion(lockFile)
                lockFile.setPinVersion(pin, version)
                guard newestVersion(lockFile) == version else { continue }
                // The published version was accepted by whoever published it; a
                // newer record nobody published is not looked at (a writer that
                // has not published yet, or one that died: the next writer checks
                // its record and publishes it).
                guard let snapshot = try snapshot(of: version, pin: pin) else { continue }
                return snapshot
            }
            if attempt == 0 { try publishAfterDeadWriter(lockFile) }
        }
        // Not a race when the published version stayed and the file holds
        // no group waiting for its publication: the lock file names a
        // version the file does not have.
        let published = lockFile.latestVersion
        let slots = try CommitSlots.read(io)
        if published == newestVersion(lockFile), !groupAwaitsPublication(above: published, slots: slots) {
            throw publishedVersionNotInFile(published, newestInFile: try newestVersionInFile(slots), lockFile: lockFile)
        }
        throw FirnError.busy(path: path, detail: "could not pin a version: commits kept racing ahead")
    }

    /// The snapshot `pin` protects, of the published `version`; nil when
    /// the slots do not lead to it. When `version` is the frame this
    /// store's last transaction appended (the writer cache), that
    /// transaction's state serves: with the link its chain took, nothing is
    /// looked up, as the next write transaction takes it
    /// (`WriteTransaction.continueLog`); without, the slots it read lead to
    /// the frame (frames write no record, so the pinned version's pages
    /// stay whatever a later writer does), two page reads saved. Otherwise
    /// the slots are read from the file.
    private func snapshot(of version: UInt64, pin: PinSlot) throws(FirnError) -> Snapshot? {
        // The cache itself (a class whose fields never change), not copies
        // of its record and slots: those copies were most of this call.
        let own = log.writerCache(at: version)
        if let own, let link = own.link { return try makeSnapshot(VersionInfo(own.record), pin: pin, log: link) }
        let slots = if let own { own.slots } else { try CommitSlots.read(io) }
        return try makeSnapshot(version: version, slots: slots, pin: pin)
    }

    /// The published version's record stayed missing: a group member's
    /// record overwrote it (they share a slot) and its writer died before
    /// publishing. Do what the next writer would — take the writer lock if
    /// it is free and publish the version it accepts (`chooseBase`) — so
    /// readers do not wait for a writer that may never come. A live holder of
    /// the lock publishes it itself.
    private func publishAfterDeadWriter(_ lockFile: LockFile) throws(FirnError) {
        guard !options.readOnly, !isClosed, let lease = try lockFile.tryLockWriter() else { return }
        addUse()
        defer {
            endHold(lease, lockFile: lockFile)
            endUse()
        }
        _ = try WriteTransaction.chooseBase(store: self, lockFile: lockFile)
    }

    /// A snapshot of an older version that is still readable: the previous
    /// commit slot's, or one another process has pinned.
    public func snapshot(version: UInt64, kind: PinKind = .tool, label: String = "") throws(FirnError) -> Snapshot {
        try checkOpen()
        let latest = try snapshot(kind: kind, label: label)
        if latest.version == version { return latest }
        // Only older versions: a slot may hold a newer record that was
        // rejected or not yet published.
        guard version < latest.version else {
            latest.close()
            throw notReadable(version)
        }
        guard let lockFile, let pin = latest.pin else {
            // Unpinned (read-only without a lock file): nobody is writing.
            let slots = try readSlots()
            if let previous = slots.previous, previous.version == version {
                return try makeSnapshot(VersionInfo(previous), pin: nil)
            }
            latest.close()
            throw notReadable(version)
        }
        // Move our pin to the old version, then check it was still protected
        // when the pin became visible: by its commit slot (its pages are freed
        // only two commits after it leaves the slots) or by another live pin.
        lockFile.setPinVersion(pin, version)
        let slots = try CommitSlots.read(io)
        // The pin passes to the new snapshot only once it exists: until
        // then `latest` owns it and releases it if anything throws. A
        // frame of the newest record's log is protected as its checkpoint is.
        if let snapshot = try makeSnapshot(version: version, slots: slots, pin: pin) {
            latest.detachPin()
            return snapshot
        }
        if lockFile.pins().contains(where: { !$0.stale && $0.slot != pin.index && $0.version == version }) {
            // A page commit's version: its history entry. A frame: the
            // entry of the retired region that holds it, which finds the
            // checkpoint it builds on (FORMAT.md 7, epoch entries).
            if let history = try latest.historyRecord(version: version) {
                let snapshot = try makeSnapshot(VersionInfo(history), pin: pin)
                latest.detachPin()
                return snapshot
            }
            if let entry = try latest.retiredLog(holding: version)?.record,
               let link = try log.link(version, ofRetired: entry) {
                let snapshot = try makeSnapshot(entry.versionInfo, pin: pin, log: link)
                latest.detachPin()
                return snapshot
            }
        }
        latest.close()
        throw notReadable(version)
    }

    private func notReadable(_ version: UInt64) -> FirnError {
        .invalidArgument(
            "\(path): version \(version) is not readable (readable: the current version, the previous slot and pinned versions)")
    }

    func makeSnapshot(_ info: VersionInfo, pin: PinSlot?, log: LogOverlayVersion? = nil) throws(FirnError) -> Snapshot {
        let map = try mapCovering(pages: info.logicalPageCount, version: info.version)
        let source = PageSource(map: map, pageSize: geometry.pageSize, pageLimit: info.logicalPageCount,
                                checkedVersion: options.checksPages ? info.version : nil)
        return Snapshot(store: self, info: info, source: source, pin: pin, log: log)
    }

    /// The current map, replaced by a larger one when the file has grown past it.
    func mapCovering(pages: UInt64, version: UInt64, fileSize known: UInt64? = nil) throws(FirnError) -> Mapping {
        try file.covering(pages: pages, version: version, fileSize: known)
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
