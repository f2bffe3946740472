/// The durability point and the writer lock held for it (FORMAT.md 8.1):
/// `sync()` and `checkpoint()`, the lock given back through the open group
/// (`endHold`), and the commit record's write with its undo.
extension Store {
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
}
