import Synchronization

/// The commit log of one open store (FORMAT.md 8, docs/COMMIT-PATH.md "The
/// commit log"): all the store knows of its checkpoints' log regions beyond
/// what the file holds, in one place.
///
/// - Reading: the chain each region is read with (`chain(for:)`), the link
///   of a version, a region's scan.
/// - Writing: the region checked before the first append (`checkRegionForWriting`),
///   where this store's last frame left the writer (`LogWriterCache`),
///   a frame its appender just wrote handed to the chain.
/// - Deferred frames kept in memory and their publication (`keep`,
///   `writeKeptFrames`): written at the group's durability point, before the
///   writer byte goes (`OpenGroup` asks), or when the store closes.
/// - The seal at a group's durability point (`seal`).
///
/// The store asks it; nothing below it (the lock file) calls into it.
final class CommitLog: @unchecked Sendable {
    let file: MappedFile
    let geometry: PageGeometry
    /// When a commit on the log is a frame and when a checkpoint.
    let policy: CheckpointPolicy
    /// Whether reads check each page's checksum (`StoreOptions.checksPages`).
    let checksPages: Bool
    /// Where kept frames are published once written; nil without a lock file.
    private let lockFile: LockFile?

    /// The chains this store reads regions with: the newest record's and the
    /// one before it (snapshots being made across a checkpoint may still
    /// want the older).
    private let chains = Locked<[LogChain]>([])
    /// The last region this store checked before appending to it: its
    /// pages are read once.
    private let writableRegion = Locked<LogRegion?>(nil)
    /// Where this store's last frame left the writer, taken by the next
    /// write transaction.
    private let writerCache = Locked<LogWriterCache?>(nil)
    /// The appender holding deferred frames not written yet (FORMAT.md
    /// 8.1), and the newest version among them (0: none), which this
    /// store's own snapshots already read and other processes do not see yet.
    private let kept = Locked<LogAppender?>(nil)
    private let unpublished = Atomic<UInt64>(0)
    /// Why kept frames could not be written, once they could not: their
    /// commits were acknowledged, the file and other processes never had
    /// them, and the store refuses use until reopened.
    private let keptFramesFailure = Locked<FirnError?>(nil)
    /// Set with `keptFramesFailure`: every use of the store asks, and an
    /// atomic load is cheaper than the lock.
    private let keptFramesFailed = Atomic<Bool>(false)

    var path: String { file.path }

    init(file: MappedFile, geometry: PageGeometry, options: StoreOptions, lockFile: LockFile?) {
        self.file = file
        self.geometry = geometry
        policy = CheckpointPolicy(options: options, geometry: geometry)
        checksPages = options.checksPages
        self.lockFile = lockFile
    }

    // MARK: reading

    /// The chain this store reads `record`'s region with (one per region,
    /// kept while it is one of the two newest records'), or nil when it
    /// made none.
    func chain(for record: CommitRecord) throws(FirnError) -> LogChain? {
        guard let region = record.logRegion else { return nil }
        return try chains.withLock { (chains) throws(FirnError) -> LogChain in
            if let chain = chains.first(where: { $0.region == region }) { return chain }
            let map = try file.covering(pages: record.logicalPageCount, version: record.version)
            let reading = reading(for: VersionInfo(record), map: map)
            let chain = LogChain(region: region, geometry: geometry, countLimit: reading.countLimit,
                                 checkpointHasTree: reading.checkpointHasTree)
            chains.append(chain)
            if chains.count > 2 { chains.removeFirst() }
            return chain
        }
    }

    /// The chain of `region` when this store already reads it.
    func existingChain(of region: LogRegion) -> LogChain? {
        chains.withLock { $0.first { $0.region == region } }
    }

    /// Forgets every chain: the next read of a region reads it from the file.
    func dropChains() {
        chains.withLock { $0.removeAll() }
    }

    /// What applying frames over the checkpoint `info` describes needs from
    /// it: the largest count a frame may give a tree (the file's bytes at
    /// the checkpoint) and whether the checkpoint holds a tree (its
    /// catalog, read through `map`).
    func reading(for info: VersionInfo, map: Mapping)
        -> (countLimit: UInt64, checkpointHasTree: @Sendable (String) throws(FirnError) -> Bool) {
        let source = PageSource(map: map, pageSize: geometry.pageSize, pageLimit: info.logicalPageCount,
                                checkedVersion: checksPages ? info.version : nil)
        let catalogRoot = info.catalogRoot
        let fileBytes = info.logicalPageCount.multipliedReportingOverflow(by: UInt64(geometry.pageSize))
        return (fileBytes.overflow ? .max : fileBytes.partialValue, { (name) throws(FirnError) in
            guard !catalogRoot.isNone else { return false }
            return try withBytes(Array(name.utf8)) { (key) throws(FirnError) in
                try source.lookup(key, in: catalogRoot) != nil
            }
        })
    }

    /// `region`'s bytes in `map`, which covers them (the caller checked the
    /// region lies inside the pages it mapped) and keeps them valid.
    func regionBytes(_ region: LogRegion, in map: Mapping) -> UnsafeRawBufferPointer {
        let pageSize = UInt64(geometry.pageSize)
        return UnsafeRawBufferPointer(start: map.base.advanced(by: Int(region.startPage * pageSize)),
                                      count: Int(region.pageCount * pageSize))
    }

    /// Runs `body` with `record`'s chain and its region's bytes in the map
    /// (the map, passed too, keeps them valid); nil when it made no region.
    /// Errors come out located at `version`.
    private func readingRegion<R>(
        _ record: CommitRecord, version: UInt64,
        _ body: (LogChain, UnsafeRawBufferPointer, Mapping) throws(FirnError) -> R
    ) throws(FirnError) -> R? {
        guard let chain = try chain(for: record), let region = record.logRegion else { return nil }
        let map = try file.covering(pages: record.logicalPageCount, version: record.version)
        do {
            // `fieldDefect` put the region inside the record's pages, which the map covers.
            return try body(chain, regionBytes(region, in: map), map)
        } catch {
            throw error.located(in: path, version: version)
        }
    }

    /// The link of `version` in `record`'s log, reading frames as needed;
    /// nil when the region holds no whole frame of it.
    func link(_ version: UInt64, of record: CommitRecord) throws(FirnError) -> LogOverlayVersion? {
        try readingRegion(record, version: version) { (chain, bytes, map) throws(FirnError) in
            try chain.link(version, bytes: bytes, owner: map)
        } ?? nil
    }

    /// The link of `version` in the retired region `entry` finds (its
    /// checkpoint has left the slots; FORMAT.md 7, epoch entries), read
    /// from the file by a chain of its own: an old pinned frame is read
    /// rarely (a tool), and the store's chains stay the newest records'.
    /// Nil when the region holds no whole frame of it.
    func link(_ version: UInt64, ofRetired entry: LogEpochRecord) throws(FirnError) -> LogOverlayVersion? {
        let info = entry.versionInfo
        let region = entry.region
        do {
            // `defect(end:)` was nil: the region lies inside the checkpoint's pages.
            let map = try file.covering(pages: info.logicalPageCount, version: entry.epoch)
            let reading = reading(for: info, map: map)
            let chain = LogChain(region: region, geometry: geometry, countLimit: reading.countLimit,
                                 checkpointHasTree: reading.checkpointHasTree)
            return try chain.link(version, bytes: regionBytes(region, in: map), owner: map)
        } catch {
            throw error.located(in: path, version: version)
        }
    }

    /// When each commit frame of the retired region `entry` finds, below
    /// `end` (the checkpoint that retired it), was committed: ns since
    /// 1970 by version. A scan only: nothing is applied.
    func retiredCommitTimes(_ entry: LogEpochRecord, end: UInt64) throws(FirnError) -> [UInt64: UInt64] {
        let map = try file.covering(pages: entry.logicalPageCount, version: entry.epoch)
        // `defect(end:)` was nil: the region lies inside the checkpoint's pages.
        let scan = LogScan.scan(entry.region, bytes: regionBytes(entry.region, in: map), geometry: geometry)
        var times: [UInt64: UInt64] = [:]
        for frame in scan.frames where frame.header.kind == .commit && frame.header.version < end {
            times[frame.header.version] = frame.header.timestampNanoseconds
        }
        return times
    }

    /// Every whole frame of `record`'s region read and applied: the scan
    /// a writer appends after.
    func scan(of record: CommitRecord) throws(FirnError) -> LogScan? {
        try readingRegion(record, version: record.version) { (chain, bytes, map) throws(FirnError) in
            try chain.readAll(bytes: bytes, owner: map)
        }
    }

    /// The scan of `record`'s region without applying a frame: its newest
    /// and durable versions, for the open-time choice (FORMAT.md 8.2),
    /// which a frame that checks out but cannot be applied must not fail:
    /// reading that version fails, naming the frame, and `verify` reports it.
    func frames(of record: CommitRecord) throws(FirnError) -> LogScan? {
        try readingRegion(record, version: record.version) { (chain, bytes, _) throws(FirnError) in
            LogScan.scan(chain.region, bytes: bytes, geometry: geometry)
        }
    }

    // MARK: writing

    /// Refuses (65) a region a writer must not append to (FORMAT.md 8.2,
    /// "What a writer checks before appending"). The record's checksum
    /// holds, so `fieldDefect` already put the region inside `[2, L)`; but
    /// a region over a page the checkpoint reaches would have the next
    /// frame written over that page, and the next first opener would
    /// reject the record (the page no longer checks out) and fall back to
    /// the durable base, losing every commit since without a word. So,
    /// before the first frame goes to a region this store did not make:
    /// L1, no page of the region is the checkpoint's catalog or space
    /// root; L2, none is a page the checkpoint's own commit wrote that it
    /// reaches (`ReuseCheck.isWrittenByBase`: only pages whose header
    /// looks like one, birth the checkpoint's version, are looked up).
    /// Once per region and store: the region's pages are read once.
    func checkRegionForWriting(_ record: CommitRecord) throws(FirnError) {
        guard let region = record.logRegion, writableRegion.withLock({ $0 != region }) else { return }
        // `fieldDefect` guarantees no overflow: start + count ≤ L.
        let pages = region.startPage..<(region.startPage + region.pageCount)
        let map = try file.covering(pages: record.logicalPageCount, version: record.version)
        let check = ReuseCheck(path: path, base: record, map: map, io: file.io)
        for page in pages {
            let found: String
            if let role = check.rootRole(page, orRegion: false) {
                found = "its \(role)"
            } else if check.isWrittenByBase(page) {
                found = "a page it reaches (written by its own commit, birth \(record.version))"
            } else {
                continue
            }
            throw FirnError.corrupt(
                path: path, page: page, version: record.version,
                detail: "the commit log region of checkpoint \(record.version) (pages \(pages.lowerBound)..<\(pages.upperBound)) holds \(found), page \(page): a log frame would overwrite it; refusing to write")
        }
        writableRegion.withLock { $0 = region }
    }

    /// An appender for `record`'s region after `scan`, once the region is
    /// checked for writing (`checkRegionForWriting`).
    func appender(for record: CommitRecord, after scan: LogScan) throws(FirnError) -> LogAppender? {
        guard let region = record.logRegion else { return nil }
        try checkRegionForWriting(record)
        return LogAppender.resume(io: file.io, region: region, geometry: geometry, scan: scan, acceptOpenGroup: true)
    }

    /// Gives `record`'s chain, when this store reads it, the frame this
    /// store's appender just wrote whole, with the write transaction's
    /// changes for a commit (`LogChain.appended`). Returns the commit
    /// frame's link when the chain took it.
    @discardableResult
    func appended(_ frame: LogScan.Frame, changes: LogChangeSet?, record: CommitRecord) -> LogOverlayVersion? {
        guard let region = record.logRegion, let chain = existingChain(of: region) else { return nil }
        return chain.appended(frame, changes: changes)
    }

    /// Leaves where this store's last frame left the writer, for the next
    /// write transaction.
    func leave(_ cache: LogWriterCache) {
        writerCache.withLock { $0 = cache }
    }

    /// Takes what the last frame left (once: the next taker finds nothing).
    func takeWriterCache() -> LogWriterCache? {
        writerCache.withLock { (cache) -> LogWriterCache? in
            defer { cache = nil }
            return cache
        }
    }

    /// What the last frame left, when it was `version`'s, without taking it.
    func writerCache(at version: UInt64) -> LogWriterCache? {
        writerCache.withLock { (cache) -> LogWriterCache? in cache?.version == version ? cache : nil }
    }

    // MARK: deferred frames kept in memory (FORMAT.md 8.1)

    /// The newest of this store's deferred commits not written yet (0: none).
    var unpublishedVersion: UInt64 { unpublished.load(ordering: .acquiring) }

    /// Why kept frames could not be written, when they could not.
    var writeFailure: FirnError? {
        keptFramesFailed.load(ordering: .acquiring) ? keptFramesFailure.withLock { $0 } : nil
    }

    /// How many bytes of deferred frames may wait in memory (16 pages of
    /// the default size): past that the commit writes them.
    static let keptFramesBytes = 65_536

    /// After `appender` appended `version`'s frame, under the writer lock
    /// and before its release: with `keep`, the frame waits in memory
    /// (published when written; this store reads it now), unless the kept
    /// frames waited `maxWait` nanoseconds or more, or are many. Otherwise
    /// every kept frame is written (a frame that is not deferred wrote them
    /// before itself) and `version` published, as durable with `durable`.
    func keep(_ appender: LogAppender, version: UInt64, keep: Bool, durable: Bool, maxWait: UInt64) throws(FirnError) {
        kept.withLock { $0 = appender }
        unpublished.store(version, ordering: .releasing)
        if keep {
            guard appender.pendingBytes >= Self.keptFramesBytes
                    || monotonicNanoseconds() &- appender.pendingSince >= maxWait else { return }
        }
        try writeKeptFrames(durable: durable)
    }

    /// Writes the deferred frames kept in memory, with one `pwrite`, then
    /// publishes their newest version: other processes see the group's
    /// commits from here on (FORMAT.md 8.1). Called with the writer lock
    /// held or its byte kept and no transaction under way: at a durability
    /// point, a checkpoint, before the writer byte goes, and when the store
    /// closes. A failed write is remembered (`writeFailure`: the store
    /// refuses use until reopened). `durable`: the newest of them was
    /// synced (a durable frame's commit publishes through here).
    func writeKeptFrames(durable: Bool = false) throws(FirnError) {
        guard let appender = kept.withLock({ (kept) -> LogAppender? in
            defer { kept = nil }
            return kept
        }) else { return }
        let version = unpublished.load(ordering: .acquiring)
        do {
            try appender.flush()
        } catch {
            let located = error.located(in: path, version: version)
            keptFramesFailure.withLock { $0 = located }
            keptFramesFailed.store(true, ordering: .releasing)
            throw located
        }
        if let lockFile, version != 0 { lockFile.publish(version: version, durable: durable) }
        unpublished.store(0, ordering: .releasing)
    }

    // MARK: the durability point

    /// What `Store.sync()` does when the open group is frames of a log.
    enum Seal {
        /// Durable now, up to this version.
        case sealed(UInt64)
        /// A checkpoint makes the group durable: the log is past the budget
        /// a group may run to, or no seal can go in the region.
        case needsCheckpoint
    }

    /// A group's durability point, under the writer lock `lease`, when the
    /// `published` version is a frame of `record`'s log: an fsync when the
    /// last frame was not deferred (it may have been written without its
    /// sync, `.none`); a seal frame right after the group's last frame, then
    /// its sync; or, when the group's frames carry the log past the budget a
    /// group may run to (`CheckpointPolicy.sealsGroup`) or no seal can go
    /// there (no page left, frames past the published version, an end no
    /// frame may follow), `.needsCheckpoint`. Nil when the published version
    /// is not a frame of that log.
    ///
    /// The appender this store's last frame left goes on when nobody wrote
    /// since (the lease follows its release): no rescan of the region.
    func seal(_ record: CommitRecord, published: UInt64, lease: WriterLease, undoFailed: (FirnError) -> Void)
        throws(FirnError) -> Seal? {
        guard let region = record.logRegion, published > record.version else { return nil }
        do throws(FirnError) {
            let appender: LogAppender
            if let cache = writerCache(at: published), cache.record == record, lease.follows(releaseMark: cache.releaseMark),
               cache.appender.newestVersion == published {
                if cache.appender.durableVersion >= published { return .sealed(try syncDurable(published)) }
                appender = cache.appender
            } else {
                guard let scan = try scan(of: record), scan.newestVersion == published else { return .needsCheckpoint }
                if scan.durableVersion >= published { return .sealed(try syncDurable(published)) }
                guard let resumed = try self.appender(for: record, after: scan) else { return .needsCheckpoint }
                appender = resumed
            }
            // Past the budget a group may run to (deferred frames run on
            // past the budget, `CheckpointPolicy.admission`): the
            // checkpoint the next durable commit would make is the
            // durability point, its one sync the group's.
            let logged = policy.budgeted ? try link(published, of: record)?.loggedEntries ?? 0 : 0
            guard policy.sealsGroup(record, entries: logged) else { return .needsCheckpoint }
            // Either appender came from `appender(for:after:)`, which
            // checked the region for writing.
            guard appender.region == region, appender.fits(payloadLength: 0) else { return .needsCheckpoint }
            try appender.seal(timestampNanoseconds: wallClockNanoseconds(), undoFailed: undoFailed)
            if let frame = appender.lastFrame { appended(frame, changes: nil, record: record) }
        } catch {
            throw error.located(in: path, version: published)
        }
        lockFile?.publishDurable(version: published)
        return .sealed(published)
    }

    /// The last frame up to `version` was written without its sync (`.none`)
    /// or with it: one fsync makes it durable.
    private func syncDurable(_ version: UInt64) throws(FirnError) -> UInt64 {
        try file.io.sync()
        lockFile?.publishDurable(version: version)
        return version
    }
}
