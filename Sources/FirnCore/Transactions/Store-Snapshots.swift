/// Snapshots: the pin protocol (FORMAT.md 4), refreshes, and older
/// versions still readable (the previous slot's, pinned ones).
extension Store {
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
}
