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
            let source = PageSource(map: map, pageSize: geometry.pageSize, pageLimit: record.logicalPageCount)
            let catalogRoot = record.catalogRoot
            let fileBytes = record.logicalPageCount.multipliedReportingOverflow(by: UInt64(geometry.pageSize))
            let chain = LogChain(
                region: region, geometry: geometry, countLimit: fileBytes.overflow ? .max : fileBytes.partialValue,
                checkpointHasTree: { (name) throws(FirnError) in
                    guard !catalogRoot.isNone else { return false }
                    return try withBytes(Array(name.utf8)) { (key) throws(FirnError) in
                        try source.lookup(key, in: catalogRoot) != nil
                    }
                })
            // The newest record's chain and the one before it: snapshots
            // being made across a checkpoint may still want the older.
            chains.append(chain)
            if chains.count > 2 { chains.removeFirst() }
            return chain
        }
    }

    /// The region's bytes in the map, and the map (which keeps them valid).
    func logRegionBytes(_ record: CommitRecord) throws(FirnError) -> (UnsafeRawBufferPointer, Mapping)? {
        guard let region = record.logRegion else { return nil }
        let map = try mapCovering(pages: record.logicalPageCount, version: record.version)
        let pageSize = UInt64(geometry.pageSize)
        // `fieldDefect` put the region inside the record's pages, which the map covers.
        let start = Int(region.startPage * pageSize), count = Int(region.pageCount * pageSize)
        return (UnsafeRawBufferPointer(start: map.base.advanced(by: start), count: count), map)
    }

    /// The link of `version` in `record`'s log, reading frames as needed;
    /// nil when the region holds no whole frame of it.
    func logLink(_ version: UInt64, of record: CommitRecord) throws(FirnError) -> LogOverlayVersion? {
        guard let chain = try logChain(for: record), let (bytes, map) = try logRegionBytes(record) else { return nil }
        do {
            return try chain.link(version, bytes: bytes, owner: map)
        } catch {
            throw error.located(in: path, version: version)
        }
    }

    /// Every whole frame of `record`'s region read: the scan, for the
    /// open-time choice and for appending.
    func logScan(of record: CommitRecord) throws(FirnError) -> LogScan? {
        guard let chain = try logChain(for: record), let (bytes, map) = try logRegionBytes(record) else { return nil }
        do {
            return try chain.readAll(bytes: bytes, owner: map)
        } catch {
            throw error.located(in: path, version: record.version)
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
        if let record = slots.record(version: version) { return try makeSnapshot(VersionInfo(record), pin: pin) }
        let records = slots.slots.compactMap { try? $0.get() }.filter { $0.version < version && $0.logRegion != nil }
        guard let record = records.max(by: { $0.version < $1.version }),
              let link = try logLink(version, of: record) else { return nil }
        return try makeSnapshot(VersionInfo(record), pin: pin, log: link)
    }

    /// `sync()` when the open group is frames of the newest record's log:
    /// a seal frame right after the group's last frame, then its sync; or,
    /// when no seal can go there (no page left, frames past the published
    /// version, an end no frame may follow), a checkpoint, which is durable
    /// and holds the group. Takes over `lease` then (and gives it back);
    /// nil, `lease` still held, when the group is not the log's.
    func sealLog(lockFile: LockFile, lease: WriterLease) throws(FirnError) -> UInt64? {
        let published = lockFile.latestVersion
        let record: CommitRecord
        do {
            (_, record, _) = try WriteTransaction.chooseBase(store: self, lockFile: lockFile)
        } catch {
            lockFile.unlockWriter(lease)
            throw error
        }
        guard let region = record.logRegion, published > record.version else { return nil }
        do throws(FirnError) {
            if let scan = try logScan(of: record), scan.newestVersion == published, scan.durableVersion >= published {
                // No open group: the last frame was durable, or written
                // without its sync (`.none`), which this sync covers.
                try io.sync()
                lockFile.publishDurable(version: published)
                lockFile.unlockWriter(lease)
                return published
            }
            if let scan = try logScan(of: record), scan.newestVersion == published,
               let appender = LogAppender.resume(io: io, region: region, geometry: geometry, scan: scan, acceptOpenGroup: true),
               appender.fits(payloadLength: 0) {
                try appender.seal(timestampNanoseconds: wallClockNanoseconds())
                lockFile.publishDurable(version: published)
                lockFile.unlockWriter(lease)
                return published
            }
        } catch {
            lockFile.unlockWriter(lease)
            throw error.located(in: path, version: published)
        }
        // The transaction owns the lease from here and releases it as it ends.
        addUse()
        let transaction: WriteTransaction
        do {
            transaction = try WriteTransaction(store: self, lockFile: lockFile, lease: lease)
        } catch {
            lockFile.unlockWriter(lease)
            endUse()
            throw error
        }
        return try transaction.commitCheckpoint()
    }
}
