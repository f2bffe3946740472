#if canImport(Glibc)
import Glibc
#endif

/// The one write transaction of a database. Changes are invisible to
/// everyone else until `commit`, which writes the new pages and the commit
/// record (into the slot not holding the last durable version), syncs once
/// (durability `.full`; `.twoPhase` also syncs between pages and record),
/// then publishes the new version. `commit(durability: .deferred)` skips the
/// sync and marks the record unsealed: the commit joins the open group, made
/// durable by the next `Store.sync()` or durable commit (FORMAT.md 8.1). A
/// power loss inside the one sync may keep the record and lose a page: the
/// open-time check (FORMAT.md 2.1) then rejects the record and the base
/// version stays current. Not tied to a thread: it may be begun on one
/// thread and committed or aborted on another (one thread at a time).
/// Dropping it without committing aborts it.
///
/// On a file with a commit log (FORMAT.md 8.2) a small commit is instead one
/// frame appended to the log, and every so often a checkpoint is an
/// ordinary commit as above (`LogTransaction`).
public final class WriteTransaction {
    /// The version this transaction commits as.
    public let version: UInt64
    /// The version it started from.
    public let baseVersion: UInt64
    package let store: Store
    private let lockFile: LockFile
    private let lease: WriterLease
    /// The thread that began the transaction, until another uses it.
    private var beginThread: pthread_t?
    private var finished = false
    /// The last durable version: the base itself, or, when the base is an
    /// unsealed member of an open group, the version the group builds on.
    package let durableBase: UInt64
    private let slots: CommitSlots
    private let slotBytes: [[UInt8]]
    /// How this transaction commits, with the state of that path only.
    private let path: Path

    /// The two commit paths (FORMAT.md 2 and 8.2).
    private enum Path {
        /// Copy-on-write pages and a commit record: a file without a commit log.
        case pages(PageCommit)
        /// The changes as the next frame carries them; the commit is that
        /// frame, or a checkpoint (a `PageCommit` made at commit) when the
        /// checkpoint policy says so or no frame can go in the region.
        case log(LogTransaction)
    }

    init(store: Store, lockFile: LockFile, lease: WriterLease) throws(FirnError) {
        self.store = store
        self.lockFile = lockFile
        self.lease = lease
        beginThread = pthread_self()
        // Right after this store's own frame, with no other writer since:
        // go on where that transaction left the log.
        if let cache = store.log.takeWriterCache(), store.options.commitLogPages > 0, lease.follows(releaseMark: cache.releaseMark),
           store.newestVersion(lockFile) == cache.version {
            try Self.checkDataFile(store: store, lockFile: lockFile)
            slots = cache.slots
            slotBytes = cache.slotBytes
            path = .log(try Self.continueLog(store: store, cache: cache))
            baseVersion = cache.version
            durableBase = min(lockFile.durableVersion, baseVersion)
            version = baseVersion + 1
            return
        }
        // Deferred frames in memory belong after the published version; the
        // base is read from the file, so they go there first. (Not reached
        // while they wait: no other writer came in between, the cache holds.)
        try store.log.writeKeptFrames()
        let (slots, record, slotBytes) = try Self.chooseBase(store: store, lockFile: lockFile)
        self.slots = slots
        self.slotBytes = slotBytes
        if store.options.commitLogPages == 0 && !record.hasLogRegion {
            let pages = try PageCommit(store: store, lockFile: lockFile, slots: slots, base: record,
                                       version: record.version + 1, slotBytes: slotBytes)
            path = .pages(pages)
            baseVersion = record.version
            durableBase = pages.durableBase
        } else {
            let log = try Self.beginLog(store: store, lockFile: lockFile, slots: slots, record: record)
            path = .log(log)
            baseVersion = log.changes.base.version
            durableBase = min(lockFile.durableVersion, baseVersion)
        }
        version = baseVersion + 1
    }

    deinit {
        if !finished { abort() }
    }

    /// The log-mode state on checkpoint `record`: the base version is the
    /// published one (a frame of its log, or the checkpoint itself).
    private static func beginLog(store: Store, lockFile: LockFile, slots: CommitSlots, record: CommitRecord) throws(FirnError) -> LogTransaction {
        let published = lockFile.latestVersion
        var link: LogOverlayVersion? = nil
        var appender: LogAppender? = nil
        if let region = record.logRegion {
            if published > record.version {
                guard let found = try store.log.link(published, of: record) else {
                    // Past the log's last whole frame: the file never had
                    // it (the lock file's claim, not a defect of the log).
                    let newest = try store.newestVersionInFile(slots)
                    if published > newest {
                        throw store.publishedVersionNotInFile(published, newestInFile: newest, lockFile: lockFile)
                    }
                    throw FirnError.corrupt(
                        path: store.path, page: region.startPage, version: published,
                        detail: "the published version has no whole frame in the log of checkpoint \(record.version)")
                }
                link = found
            }
            let base = link?.version ?? record.version
            // Append only right after the base's frame, and only while
            // commits go to the log: frames past the published version
            // (a writer died after its frame; a first opener dropped an
            // open group) must never have a frame chained after them. And
            // only while the base's record is the newest valid one: a newer
            // record the open-time check rejected (a checkpoint a power loss
            // undid) holds a version the next frames would take, and readers
            // would find it for that version; a checkpoint overwrites it.
            if store.options.commitLogPages > 0, slots.newest?.version == record.version,
               let scan = try store.log.scan(of: record), scan.newestVersion == base {
                appender = try store.log.appender(for: record, after: scan)
            }
        }
        let snapshot = try store.makeSnapshot(VersionInfo(record), pin: nil, log: link)
        return LogTransaction(record: record, link: link, base: snapshot, appender: appender)
    }

    /// The log-mode state right after this store's own frame `cache.version`.
    private static func continueLog(store: Store, cache: LogWriterCache) throws(FirnError) -> LogTransaction {
        // The link the chain took from this store's appender, or read from the file.
        let link: LogOverlayVersion
        if let taken = cache.link {
            link = taken
        } else if let read = try store.log.link(cache.version, of: cache.record) {
            link = read
        } else {
            throw FirnError.corrupt(
                path: store.path, page: cache.record.logRegion?.startPage, version: cache.version,
                detail: "the frame this store appended is not whole in the log of checkpoint \(cache.record.version)")
        }
        let snapshot = try store.makeSnapshot(VersionInfo(cache.record), pin: nil, log: link)
        return LogTransaction(record: cache.record, link: link, base: snapshot, appender: cache.appender)
    }

    /// `.busy` when the lock file names another data file than the store's.
    ///
    /// The lock file names another data file only after a replacement
    /// made while this store held its session, which only this store's
    /// own lock file can make (`compactInPlaceIfAlone`): the descriptor
    /// still names the replaced file, and a commit into it would be
    /// acknowledged and lost with it (an appender would chain a frame to
    /// the old file's log). Checked under the writer lock, as every
    /// commit and seal is.
    static func checkDataFile(store: Store, lockFile: LockFile) throws(FirnError) {
        guard !lockFile.dataFileIdentity.conflicts(with: store.dataFile) else {
            throw FirnError.busy(
                path: store.path,
                detail: "the database file was replaced at its path (in-place compaction or import) while this store had it open; close the store and open the path again")
        }
    }

    /// The version to commit on top of (FORMAT.md 2.1). Normally the newest
    /// record, which is the published version: its writer published it after
    /// its sync. A newest record that is not the published version was left
    /// by a writer that died before publishing (or nobody has published yet):
    /// it is checked, and the version accepted is published before anything
    /// is built on it. A rejected record's slot is then simply overwritten.
    /// A published version past a newest record that made a log region is a
    /// frame of that log (FORMAT.md 8.2): the record stands. Also returns the
    /// bytes of each slot's record area as read.
    static func chooseBase(store: Store, lockFile: LockFile) throws(FirnError) -> (CommitSlots, CommitRecord, [[UInt8]]) {
        try checkDataFile(store: store, lockFile: lockFile)
        let (read, bytes) = try store.slotReadBuffer.withLock { (buffer) throws(FirnError) in
            try CommitSlots.readWithBytes(store.io, pageSize: store.geometry.pageSize, buffer: &buffer)
        }
        var slots = read
        let published = lockFile.latestVersion
        if let newest = slots.newest, newest.version == published || newest.hasLogRegion && published > newest.version {
            return (slots, try slots.currentForWriting(path: store.path), bytes)
        }
        slots = store.checked(slots)
        // A deferred commit's record overwrites the record of the group's
        // previous member, the published version: a writer that died between
        // that record and its publication left the published version without
        // a record. The published version being a member of the record's
        // group (above its durable base) shows this session saw the group
        // written: no power loss since, and a kill loses no write. Others may
        // have read its versions: build on its last record, never fall back
        // to the durable base (that would reuse version numbers others saw
        // and free pages their pins still read). A stale unsealed record a
        // first opener rejected stays rejected: it published the durable base.
        if published != 0, let newest = slots.newest, newest.unsealed,
           newest.version > published, newest.durableBase < published {
            slots = slots.acceptingUnsealedNewest(store.io)
        }
        let base = try slots.currentForWriting(path: store.path)
        // A published version past a base without a log is none the file
        // holds: committing base + 1 would take a version number readers
        // were told is something else, and publish nothing they would see.
        if published > base.version, !base.hasLogRegion {
            throw store.publishedVersionNotInFile(published, newestInFile: try store.newestVersionInFile(slots),
                                                  lockFile: lockFile)
        }
        // What the file holds is the checkpoint and, with a log, its durable
        // frames (FORMAT.md 8.2), as a first opener takes it: publishing
        // the checkpoint alone under a published version that is too low
        // (a damaged lock file) would build on it and drop the acknowledged
        // frames after it. `publish` only raises, so a higher published
        // version another writer made stays.
        var accepted = base.version
        if base.hasLogRegion, let scan = try store.log.frames(of: base) { accepted = max(accepted, scan.durableVersion) }
        if accepted != published { lockFile.publish(version: accepted) }
        return (slots, base, bytes)
    }

    // MARK: trees

    /// The tree called `name`; created (empty) when missing if `create`.
    public func tree(_ name: String, create: Bool = true) throws(FirnError) -> WriteTree? {
        try checkActive()
        switch path {
        case let .log(log):
            try Self.checkTreeName(name, geometry: store.geometry)
            return try located { () throws(FirnError) -> WriteTree? in
                if try !log.changes.exists(name) {
                    guard create else { return nil }
                    try log.changes.createTree(name)
                }
                return WriteTree(name: name, storage: .log(log.changes, generation: log.generations[name] ?? 0), transaction: self)
            }
        case let .pages(pages):
            guard let tree = try located({ () throws(FirnError) in try pages.tree(name, create: create) }) else { return nil }
            return WriteTree(name: name, storage: .pages(tree, pages), transaction: self)
        }
    }

    /// Names of the trees as this transaction sees them.
    public func treeNames() throws(FirnError) -> [String] {
        try checkActive()
        switch path {
        case let .log(log): return try located { () throws(FirnError) in try log.changes.treeNames() }
        case let .pages(pages): return try located { () throws(FirnError) in try pages.treeNames() }
        }
    }

    /// Deletes a tree and all its entries; false when there was none.
    /// Handles to the dropped tree refuse further use.
    @discardableResult
    public func dropTree(_ name: String) throws(FirnError) -> Bool {
        try checkActive()
        switch path {
        case let .log(log):
            let dropped = try located { () throws(FirnError) in try log.changes.dropTree(name) }
            if dropped { log.generations[name, default: 0] += 1 }
            return dropped
        case let .pages(pages):
            return try located { () throws(FirnError) in try pages.dropTree(name) }
        }
    }

    /// True while the handle's tree is the one this transaction holds under
    /// `name` (not dropped, not replaced by a new tree of the same name).
    func isCurrent(_ storage: WriteTree.Storage, name: String) -> Bool {
        switch storage {
        case let .pages(tree, pages): return pages.isCurrent(tree, name: name)
        case let .log(changes, generation):
            guard case let .log(log) = path else { return false }
            // No dictionary lookup (a hash of the name) on every put while no tree was dropped.
            let current = log.generations.isEmpty ? 0 : log.generations[name] ?? 0
            return current == generation && (try? changes.exists(name)) == true
        }
    }

    // MARK: ending

    /// Makes the changes visible and, unless `durability` is `.deferred`,
    /// durable; returns the new version (the base version when nothing
    /// changed: no commit is made then).
    ///
    /// `.deferred` writes the pages and an unsealed record without a sync
    /// and publishes the version: this process and others on the host read
    /// it at once, but a power loss before the group's durability point
    /// (`Store.sync()`, or any durable commit after it) loses the whole
    /// group, never part of it. `Store.durableVersion` and
    /// `waitForDurable(version:timeout:)` tell when it is durable.
    @discardableResult
    public func commit(durability: CommitDurability = .durable) throws(FirnError) -> UInt64 {
        try checkActive()
        let pages: PageCommit
        switch path {
        case let .log(log): return try commitLog(log, durability: durability, checkpoint: false)
        case let .pages(commit): pages = commit
        }
        // The distance field holds 31 bits: a group that would outgrow it
        // is made durable by this commit instead.
        let deferred = durability == .deferred && version - durableBase < CommitRecord.maximumDistance
        guard pages.hasChanges else {
            abort()
            return baseVersion
        }
        return try commitPages(pages, deferred: deferred)
    }

    /// Writes `pages` as a commit, its record into its slot, and publishes it.
    private func commitPages(_ pages: PageCommit, deferred: Bool, logRegionPages: UInt32 = 0,
                             retiring region: LogRegion? = nil) throws(FirnError) -> UInt64 {
        let record: CommitRecord
        do {
            record = try pages.write(deferred: deferred, logRegionPages: logRegionPages, retiring: region)
            // Two-phase: every page of the new version is durable before the
            // record points at it. Single-sync (`.full`) leaves that order to
            // the open-time check, which rejects a record whose pages are not all there.
            if store.options.durability == .twoPhase && !deferred { try store.io.sync() }
        } catch {
            abort()
            throw error.located(in: store.path, version: version)
        }
        // The record, into the slot that does not hold the last durable
        // version, then the one sync that makes pages and record durable
        // together — with every deferred commit before it, whose pages and
        // records were written to the same file earlier.
        let slotOffset = UInt64(pages.targetSlot) * UInt64(store.geometry.pageSize)
        do {
            try store.writeRecord(record.encoded(), at: slotOffset, replacing: pages.overwrittenSlot,
                                  sync: store.options.durability != .none && !deferred)
        } catch {
            abort()
            throw error
        }
        // `.none` skips the sync: its commits are not durable, and no
        // durable version is claimed for them.
        lockFile.publish(version: version, durable: !deferred && store.options.durability != .none)
        pages.keepForNextCommit()
        finish(deferred: deferred)
        return version
    }

    /// A log-mode commit: one frame when the log admits it (and no
    /// `checkpoint` is asked for), else a checkpoint (always durable: frames
    /// after an unsealed checkpoint record would be lost with it).
    private func commitLog(_ log: LogTransaction, durability: CommitDurability, checkpoint: Bool) throws(FirnError) -> UInt64 {
        guard !log.changes.isEmpty || checkpoint && log.link != nil else {
            abort()
            return baseVersion
        }
        // A deferred frame joins the open group, made durable by a seal
        // (`Store.sync()`) or by the next durable frame or checkpoint.
        // `.none` writes frames that are not deferred without their sync.
        let deferred = durability == .deferred
        let syncs = store.options.durability != .none
        // A deferred frame waits in memory while the group keeps the writer
        // byte (FORMAT.md 8.1); `.none` keeps no byte, so writes it at once.
        let buffered = deferred && syncs && store.options.keepsDeferredFramesInMemory
        // Why the log took no frame, for the checkpoint's region size. A
        // checkpoint asked for counts as the budget's when the log is past
        // it (a group's durability point, `CommitLog.seal`).
        let policy = store.checkpointPolicy
        var admission: CheckpointPolicy.FrameAdmission? = nil
        if checkpoint { admission = policy.askedCheckpointAdmission(log.record, entries: log.entries) }
        if !checkpoint, let appender = log.appender {
            let payload = log.changes.payload()
            let verdict = policy.admission(payloadLength: payload.count, deferred: deferred, record: log.record,
                                           entries: log.entries, appender: appender)
            admission = verdict
            if verdict == .admitted {
                do {
                    try appender.appendCommit(payload: payload, deferred: deferred, buffered: buffered,
                                              timestampNanoseconds: wallClockNanoseconds(), sync: syncs,
                                              undoFailed: store.markFailed)
                } catch {
                    // A frame that is not deferred was undone (or the store
                    // refuses use). A deferred one may be in the file whole: the
                    // next writer sees it past the published version and
                    // checkpoints instead.
                    abort()
                    throw error.located(in: store.path, version: version)
                }
                let link = appender.lastFrame.flatMap {
                    store.log.appended($0, changes: log.changes, record: log.record)
                }
                do {
                    // A buffered frame the chain did not take is written at
                    // once: this store's snapshots would look for it in the file.
                    try store.log.keep(appender, version: version, keep: buffered && link != nil,
                                       durable: !deferred && syncs, maxWait: store.keptFramesMaxWait)
                } catch {
                    abort()
                    throw error
                }
                let release = finish(deferred: deferred)
                if let release {
                    store.log.leave(LogWriterCache(releaseMark: release, version: version, slots: slots,
                                                   slotBytes: slotBytes, record: log.record, appender: appender, link: link))
                }
                return version
            }
        }
        let pages: PageCommit
        do {
            // The checkpoint's record follows the frames: they go to the
            // file first, so that a record lost to power (or a failed
            // checkpoint) leaves the log a reader can read.
            try store.log.writeKeptFrames()
            pages = try PageCommit(store: store, lockFile: lockFile, slots: slots, base: log.record,
                                   version: version, slotBytes: slotBytes)
            try log.replay(into: pages)
        } catch {
            abort()
            throw error.located(in: store.path, version: version)
        }
        return try commitPages(pages, deferred: false,
                               logRegionPages: policy.checkpointRegionPages(after: admission, appender: log.appender),
                               retiring: log.record.logRegion)
    }

    /// Commits as a checkpoint whatever the log admits (with no changes
    /// too, when the base is a frame): `Store.sync()` when no seal can go
    /// in the region. The base version when there is nothing to checkpoint.
    func commitCheckpoint() throws(FirnError) -> UInt64 {
        try checkActive()
        guard case let .log(log) = path else {
            abort()
            return baseVersion
        }
        return try commitLog(log, durability: .durable, checkpoint: true)
    }

    /// Discards the changes. Pages written so far were free and stay free.
    public func abort() {
        guard !finished else { return }
        finish()
    }

    /// Ends the transaction; returns the writer lock's release mark. A
    /// deferred commit leaves its group open, and keeps the cross-process
    /// writer byte for it (`OpenGroup.endHold`),
    /// unless the store never syncs (`.none`: no durability point comes).
    @discardableResult
    private func finish(deferred: Bool = false) -> UInt32? {
        finished = true
        let release = store.endHold(lease, lockFile: lockFile,
                                    keepingByteForGroup: deferred && store.options.durability != .none)
        store.endUse()
        return release
    }

    // MARK: helpers

    func checkActive() throws(FirnError) {
        if finished { throw FirnError.misuse("\(store.path): the write transaction has ended") }
        if let beginThread, pthread_equal(beginThread, pthread_self()) == 0 {
            // Handed over: the thread that began it may now wait for the
            // lock again without that being taken for a self-deadlock.
            self.beginThread = nil
            lockFile.writerMovedThread()
        }
    }

    func located<R>(_ body: () throws(FirnError) -> R) throws(FirnError) -> R {
        do { return try body() } catch { throw error.located(in: store.path, version: baseVersion) }
    }

    static func treeKey(_ name: String, geometry: PageGeometry) throws(FirnError) -> [UInt8] {
        try checkTreeName(name, geometry: geometry)
        return Array(name.utf8)
    }

    /// The check of `treeKey` without making the key (every `tree(_:)` of
    /// a log transaction makes it).
    static func checkTreeName(_ name: String, geometry: PageGeometry) throws(FirnError) {
        let count = name.utf8.count
        guard count > 0, count <= geometry.maxKeyLength else {
            throw FirnError.invalidArgument(
                "tree name must be 1 to \(geometry.maxKeyLength) bytes of UTF-8 (got \(count))")
        }
    }
}

/// Whether a commit is durable when it returns.
public enum CommitDurability: Sendable, Equatable {
    /// As the store's `Durability` says (normally: synced before `commit` returns).
    case durable
    /// Written and published without a sync, unsealed: durable with the
    /// next durability point (`Store.sync()` or a durable commit), together
    /// with every other deferred commit since the last one (FORMAT.md 8.1).
    case deferred
}
