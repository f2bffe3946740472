/// Reading the commit log (docs/COMMIT-PATH.md, "The commit log"): a
/// version past a checkpoint that made a log region is one of its frames.
extension Store {
    /// The chain this store reads `record`'s region with (one per region,
    /// kept while it is the newest record's), or nil when it made none.
    func logChain(for record: CommitRecord) throws(FirnError) -> LogChain? {
        guard let region = record.logRegion else { return nil }
        return try logChains.withLock { (chains) throws(FirnError) -> LogChain in
            if let chain = chains.first(where: { $0.region == region }) { return chain }
            let map = try mapCovering(pages: record.logicalPageCount, version: record.version)
            let reading = logReading(for: record, map: map)
            let chain = LogChain(region: region, geometry: geometry, countLimit: reading.countLimit,
                                 checkpointHasTree: reading.checkpointHasTree)
            // The newest record's chain and the one before it: snapshots
            // being made across a checkpoint may still want the older.
            chains.append(chain)
            if chains.count > 2 { chains.removeFirst() }
            return chain
        }
    }

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
    func checkLogRegionForWriting(_ record: CommitRecord) throws(FirnError) {
        guard let region = record.logRegion, writableLogRegion.withLock({ $0 != region }) else { return }
        // `fieldDefect` guarantees no overflow: start + count ≤ L.
        let pages = region.startPage..<(region.startPage + region.pageCount)
        let map = try mapCovering(pages: record.logicalPageCount, version: record.version)
        let check = ReuseCheck(path: path, base: record, map: map, io: io)
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
        writableLogRegion.withLock { $0 = region }
    }

    /// What applying `record`'s frames needs from the checkpoint: the
    /// largest count a frame may give a tree (the file's bytes at the
    /// checkpoint) and whether the checkpoint holds a tree (its catalog,
    /// read through `map`).
    func logReading(for record: CommitRecord, map: Mapping)
        -> (countLimit: UInt64, checkpointHasTree: @Sendable (String) throws(FirnError) -> Bool) {
        logReading(for: VersionInfo(record), map: map)
    }

    /// `logReading(for:map:)` of the checkpoint `info` describes.
    func logReading(for info: VersionInfo, map: Mapping)
        -> (countLimit: UInt64, checkpointHasTree: @Sendable (String) throws(FirnError) -> Bool) {
        let source = PageSource(map: map, pageSize: geometry.pageSize, pageLimit: info.logicalPageCount,
                                checkedVersion: options.checksPages ? info.version : nil)
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
    private func readingLog<R>(
        _ record: CommitRecord, version: UInt64,
        _ body: (LogChain, UnsafeRawBufferPointer, Mapping) throws(FirnError) -> R
    ) throws(FirnError) -> R? {
        guard let chain = try logChain(for: record), let region = record.logRegion else { return nil }
        let map = try mapCovering(pages: record.logicalPageCount, version: record.version)
        do {
            // `fieldDefect` put the region inside the record's pages, which the map covers.
            return try body(chain, regionBytes(region, in: map), map)
        } catch {
            throw error.located(in: path, version: version)
        }
    }

    /// Gives `record`'s chain, when this store reads it, the frame this
    /// store's appender just wrote whole, with the write transaction's
    /// changes for a commit (`LogChain.appended`). Returns the commit
    /// frame's link when the chain took it.
    @discardableResult
    func logAppended(_ frame: LogScan.Frame, changes: LogChangeSet?, record: CommitRecord) -> LogOverlayVersion? {
        guard let region = record.logRegion,
              let chain = logChains.withLock({ $0.first(where: { $0.region == region }) }) else { return nil }
        return chain.appended(frame, changes: changes)
    }

    /// The link of `version` in `record`'s log, reading frames as needed;
    /// nil when the region holds no whole frame of it.
    func logLink(_ version: UInt64, of record: CommitRecord) throws(FirnError) -> LogOverlayVersion? {
        try readingLog(record, version: version) { (chain, bytes, map) throws(FirnError) in
            try chain.link(version, bytes: bytes, owner: map)
        } ?? nil
    }

    /// The link of `version` in the retired region `entry` finds (its
    /// checkpoint has left the slots; FORMAT.md 7, epoch entries), read
    /// from the file by a chain of its own: an old pinned frame is read
    /// rarely (a tool), and the store's chains stay the newest records'.
    /// Nil when the region holds no whole frame of it.
    func logLink(_ version: UInt64, ofRetired entry: LogEpochRecord) throws(FirnError) -> LogOverlayVersion? {
        let info = entry.versionInfo
        let region = entry.region
        do {
            // `defect(end:)` was nil: the region lies inside the checkpoint's pages.
            let map = try mapCovering(pages: info.logicalPageCount, version: entry.epoch)
            let reading = logReading(for: info, map: map)
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
    package func retiredLogCommitTimes(_ entry: LogEpochRecord, end: UInt64) throws(FirnError) -> [UInt64: UInt64] {
        let map = try mapCovering(pages: entry.logicalPageCount, version: entry.epoch)
        // `defect(end:)` was nil: the region lies inside the checkpoint's pages.
        let scan = LogScan.scan(entry.region, bytes: regionBytes(entry.region, in: map), geometry: geometry)
        var times: [UInt64: UInt64] = [:]
        for frame in scan.frames where frame.header.kind == .commit && frame.header.version < end {
            times[frame.header.version] = frame.header.timestampNanoseconds
        }
        return times
    }

    /// Every whole frame of `record`'s region read: the scan, for the
    /// open-time choice and for appending.
    func logScan(of record: CommitRecord) throws(FirnError) -> LogScan? {
        try readingLog(record, version: record.version) { (chain, bytes, map) throws(FirnError) in
            try chain.readAll(bytes: bytes, owner: map)
        }
    }

    /// The scan of `record`'s region without applying a frame: its newest
    /// and durable versions, for the open-time choice (FORMAT.md 8.2),
    /// which a frame that checks out but cannot be applied must not fail:
    /// reading that version fails, naming the frame, and `verify` reports it.
    func logFrames(of record: CommitRecord) throws(FirnError) -> LogScan? {
        try readingLog(record, version: record.version) { (chain, bytes, _) throws(FirnError) in
            LogScan.scan(chain.region, bytes: bytes, geometry: geometry)
        }
    }

    /// A snapshot of `version` when the slots lead to it: a record's own
    /// version, else a frame of the log of the newest record below it that
    /// made one. Records first: a frame a writer left unpublished when it
    /// died holds the version the next checkpoint takes, and the checkpoint
    /// is that version. The other way round (a frame taking the version of
    /// a record the open-time check rejected) cannot happen: a writer never
    /// appends while such a record is in a slot (FORMAT.md 8.2). Nil when
    /// neither holds it.
    func makeSnapshot(version: UInt64, slots: CommitSlots, pin: PinSlot?) throws(FirnError) -> Snapshot? {
        // One pass over the two slots, without arrays (every refresh after
        // an instance's own commit comes here): the record of `version`, or
        // the newest log checkpoint below it.
        var checkpoint: CommitRecord? = nil
        for slot in slots.slots {
            guard case let .success(record) = slot else { continue }
            if record.version == version { return try makeSnapshot(VersionInfo(record), pin: pin) }
            if record.version < version, record.hasLogRegion, record.version > checkpoint?.version ?? 0 {
                checkpoint = record
            }
        }
        guard let record = checkpoint, let link = try logLink(version, of: record) else { return nil }
        return try makeSnapshot(VersionInfo(record), pin: pin, log: link)
    }

    /// What `sync()` does when the open group is frames of `record`'s log.
    enum LogSeal {
        /// Durable now, up to this version.
        case sealed(UInt64)
        /// A checkpoint makes the group durable: the log is past the budget
        /// a group may run to, or no seal can go in the region.
        case needsCheckpoint
    }

    /// `sync()`, under the writer lock, when the published version is a
    /// frame of `record`'s log: an fsync when the last frame was not
    /// deferred (it may have been written without its sync, `.none`); a
    /// seal frame right after the group's last frame, then its sync; or,
    /// when the group's frames carry the log past the budget a group may
    /// run to (`CheckpointPolicy.sealsGroup`) or no
    /// seal can go there (no page left, frames past the published version,
    /// an end no frame may follow), `.needsCheckpoint`. Nil when the
    /// published version is not a frame of that log.
    func sealLog(_ record: CommitRecord, lockFile: LockFile) throws(FirnError) -> LogSeal? {
        let published = lockFile.latestVersion
        guard let region = record.logRegion, published > record.version else { return nil }
        do throws(FirnError) {
            guard let scan = try logScan(of: record), scan.newestVersion == published else { return .needsCheckpoint }
            if scan.durableVersion >= published {
                try io.sync()
            } else {
                // Past the budget a group may run to (deferred frames run on
                // past the budget, `CheckpointPolicy.admission`): the
                // checkpoint the next durable commit would make is the
                // durability point, its one sync the group's.
                let logged = checkpointPolicy.budgeted ? try logLink(published, of: record)?.loggedEntries ?? 0 : 0
                guard checkpointPolicy.sealsGroup(record, entries: logged) else { return .needsCheckpoint }
                try checkLogRegionForWriting(record)
                guard let appender = LogAppender.resume(io: io, region: region, geometry: geometry, scan: scan, acceptOpenGroup: true),
                      appender.fits(payloadLength: 0) else { return .needsCheckpoint }
                try appender.seal(timestampNanoseconds: wallClockNanoseconds(), undoFailed: markFailed)
                if let frame = appender.lastFrame { logAppended(frame, changes: nil, record: record) }
            }
        } catch {
            throw error.located(in: path, version: published)
        }
        lockFile.publishDurable(version: published)
        return .sealed(published)
    }
}

extension Store {
    /// A snapshot of the checkpoint `record` itself, without its frames,
    /// for `verify` when a version of `record`'s log cannot be read (a
    /// frame that cannot be applied): the checkpoint's pages are still
    /// checked. Pinned as `snapshot(version:)` pins an older version: the
    /// pin is set, then the record must still be in its slot (its pages are
    /// reused only after it has left the slots). Nil when it no longer is.
    package func checkpointSnapshot(_ record: CommitRecord, kind: PinKind, label: String) throws(FirnError) -> Snapshot? {
        try checkOpen()
        guard let lockFile else {
            // Unpinned (read-only without a lock file): nobody is writing.
            guard try CommitSlots.read(io).record(version: record.version) == record else { return nil }
            return try makeSnapshot(VersionInfo(record), pin: nil)
        }
        let pin = try lockFile.claimPin(version: record.version, kind: kind, label: label)
        do {
            guard try CommitSlots.read(io).record(version: record.version) == record else {
                lockFile.releasePin(pin)
                return nil
            }
            return try makeSnapshot(VersionInfo(record), pin: pin)
        } catch {
            lockFile.releasePin(pin)
            throw error
        }
    }
}

/// Deferred frames kept in memory (FORMAT.md 8.1, docs/COMMIT-PATH.md "Grouped commits and durability").
extension Store {
    /// The newest version this store reads: the published one, or the
    /// newest of its own deferred commits not written yet.
    func newestVersion(_ lockFile: LockFile) -> UInt64 {
        max(lockFile.latestVersion, unpublishedVersion.load(ordering: .acquiring))
    }

    /// How many bytes of deferred frames may wait in memory (16 pages of
    /// the default size): past that the commit writes them.
    static let unwrittenFramesBytes = 65_536

    /// After `appender` appended `version`'s frame, under the writer lock
    /// and before its release: with `keep`, the frame waits in memory
    /// (published when written; this store reads it now), unless the kept
    /// frames waited long enough or are many. Otherwise every kept frame
    /// is written (a frame that is not deferred wrote them before itself)
    /// and `version` published, as durable with `durable`.
    func publishAppended(_ appender: LogAppender, version: UInt64, keep: Bool, durable: Bool) throws(FirnError) {
        unwrittenLog.withLock { $0 = appender }
        unpublishedVersion.store(version, ordering: .releasing)
        if keep {
            // As long as the kept writer byte's idle watch (2 ms): a group
            // whose commits go on is written that often, an idle one by the watch.
            let wait = lockFile?.keptByteIdleNanoseconds.load(ordering: .relaxed) ?? 0
            guard appender.pendingBytes >= Self.unwrittenFramesBytes
                    || monotonicNanoseconds() &- appender.pendingSince >= wait else { return }
        }
        try publishUnwrittenFrames(durable: durable)
    }

    /// Writes the deferred frames this store keeps in memory now, unless a
    /// transaction of it is under way (whose end decides): the writer byte
    /// kept for the group is let go, which writes them first. For what
    /// reads the log from the file in this process (`inspectLog`, which
    /// `verify` and the tools read it with): it then finds every version
    /// this store reads.
    ///
    /// It waits (up to `unwrittenFramesWait`) for the in-process writer
    /// permit rather than trying once: the kept-byte watch may be letting
    /// the byte go at that moment, its write of the frames not done yet,
    /// and a caller that read the region then found frames missing that
    /// this store's snapshots read (a crash test's in-process `verify`
    /// right after a deferred commit, on a loaded machine).
    package func writeUnwrittenFramesIfIdle() {
        guard unpublishedVersion.load(ordering: .acquiring) != 0 else { return }
        lockFile?.dropRetainedWriterByte(waitingUpTo: Self.unwrittenFramesWait)
    }

    /// How long `writeUnwrittenFramesIfIdle` waits for the writer permit
    /// (250 ms): the watch holds it for microseconds; a transaction of this
    /// store under way holds it until its end, and then the frames stay.
    static let unwrittenFramesWait: UInt64 = 250_000_000

    /// Writes the deferred frames this store keeps in memory now, under the
    /// writer lock (waiting up to `timeout`, default `lockTimeout`); throws
    /// when that write fails (the store then refuses use).
    package func writeUnwrittenFrames(timeout: Duration? = nil) throws(FirnError) {
        guard unpublishedVersion.load(ordering: .acquiring) != 0 else { return }
        try holdingWriterLock(try writableLockFile(), timeout: timeout) { () throws(FirnError) in
            try publishUnwrittenFrames()
        }
    }

    /// Writes the deferred frames this store keeps in memory, with one
    /// `pwrite`, then publishes their newest version: other processes see
    /// the group's commits from here on (FORMAT.md 8.1). Called with the
    /// writer lock held or its byte kept and no transaction under way: at
    /// a durability point, a checkpoint, before the writer byte goes, and
    /// when the store closes. A failed write makes the store refuse use
    /// until reopened (the commits were acknowledged; the file and other
    /// processes never had them). `durable`: the newest of them was synced
    /// (a durable frame's commit publishes through here).
    func publishUnwrittenFrames(durable: Bool = false) throws(FirnError) {
        guard let appender = unwrittenLog.withLock({ (kept) -> LogAppender? in
            defer { kept = nil }
            return kept
        }) else { return }
        let version = unpublishedVersion.load(ordering: .acquiring)
        do {
            try appender.flush()
        } catch {
            let located = error.located(in: path, version: version)
            markFramesUnwritten(located)
            throw located
        }
        if let lockFile, version != 0 { lockFile.publish(version: version, durable: durable) }
        unpublishedVersion.store(0, ordering: .releasing)
    }
}

