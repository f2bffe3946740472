/// What the store asks its commit log (`CommitLog`, docs/COMMIT-PATH.md
/// "The commit log"): a version past a checkpoint that made a log region
/// is one of its frames.
extension Store {
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
        guard let record = checkpoint, let link = try log.link(version, of: record) else { return nil }
        return try makeSnapshot(VersionInfo(record), pin: pin, log: link)
    }

    /// When each commit frame of the retired region `entry` finds, below
    /// `end` (the checkpoint that retired it), was committed: ns since
    /// 1970 by version (`firn versions`).
    package func retiredLogCommitTimes(_ entry: LogEpochRecord, end: UInt64) throws(FirnError) -> [UInt64: UInt64] {
        try log.retiredCommitTimes(entry, end: end)
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
        max(lockFile.latestVersion, log.unpublishedVersion)
    }

    /// How long deferred frames may wait in memory: as long as the open
    /// group's idle watch (2 ms). A group whose commits go on is written
    /// that often, an idle one by the watch.
    var keptFramesMaxWait: UInt64 { group?.idleNanoseconds.load(ordering: .relaxed) ?? 0 }

    /// Writes the deferred frames this store keeps in memory now, under the
    /// writer lock (waiting up to `timeout`, default `lockTimeout`); throws
    /// when that write fails (the store then refuses use). For a caller
    /// that reads the file in this process and must find every version
    /// this store reads there.
    package func writeUnwrittenFrames(timeout: Duration? = nil) throws(FirnError) {
        guard log.unpublishedVersion != 0 else { return }
        try holdingWriterLock(try writableLockFile(), timeout: timeout) { (_) throws(FirnError) in
            try log.writeKeptFrames()
        }
    }
}
