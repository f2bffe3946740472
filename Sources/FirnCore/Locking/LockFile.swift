#if canImport(Glibc)
import Glibc
#endif
import CFirnShims
import Synchronization

/// `<database path>.lock`: the shared memory through which every process
/// that has a database open coordinates — the latest published version and
/// its change notification (futex), the one-writer lock (a robust
/// process-shared mutex), the reader table of pins, and the session table
/// naming who has the database open. Byte layout: `LockFileLayout`,
/// `SessionEntryLayout`, `ReaderSlotLayout`.
///
/// Each `LockFile` is one open file description holding OFD locks (see
/// `LockFileLayout`): a read lock on the session byte and on its process's
/// liveness byte. Two `LockFile`s in one process therefore behave like two
/// processes towards each other, except that slots carrying our own pid are
/// always considered alive.
///
/// Opening follows a race-free protocol under the init lock (an OFD write
/// lock on byte 1): when no other description holds a session lock, the
/// file is (re)initialized (sized, zeroed, header written, mutex
/// initialized) — by a read-only open, only its published version is
/// cleared; otherwise its header must be valid, or opening fails with
/// `FirnError.corrupt` naming the processes holding it. Only then is the
/// session lock taken and the init lock released, so nobody ever
/// reinitializes a file another process has mapped.
///
/// The mapping holds a reference to the open file description, so OFD locks
/// would outlive close(2) while it exists: `close()` unlocks them
/// explicitly, and the mapping itself goes in deinit (accessors check
/// `isClosed` first). A process that dies loses its mapping and descriptors,
/// hence its locks, which is how others see it is gone.
///
/// The writer lock is not tied to a thread (see `LockFile-Writer.swift`).
/// Calling `close()` concurrently with other calls on the same `LockFile`
/// is a misuse.
///
/// `@unchecked Sendable`: the shared state lives in the mapping and is only
/// accessed with atomics (or under the writer mutex); the little local
/// state (our pins, session entry, writer ownership) is behind a `Locked`.
package final class LockFile: @unchecked Sendable {
    /// The lock file's path (`<database path>.lock`).
    package let path: String
    /// The database file the lock file belongs to.
    package let databasePath: String
    /// How it was opened.
    package let mode: OpenMode
    /// The number of reader slots (from the header; the `readerSlots`
    /// argument only applies when this open initialized the file).
    package let readerSlotCount: Int
    /// True when this open (re)initialized the lock file: no other process
    /// had the database open, and `latestVersion` is 0 until published. A
    /// read-only open of a lock file nobody holds does not reinitialize it
    /// but clears its published version: `latestVersion` is 0 then too.
    package let didInitialize: Bool

    let fd: Int32
    /// The lock file's own device and inode: which `LockFile`s of this
    /// process share its writer byte (`WriterByteSiblings`).
    let lockFileIdentity: DataFileIdentity
    let mapping: SharedMapping
    let ownPID: Int32
    let local: Locked<LocalState>
    /// The in-process half of the writer lock.
    let writerQueue = WriterQueue()
    struct LocalState {
        var closed = false
        var sessionEntry: PinSlot?
        var pins: Set<PinSlot> = []
        var exclusive = false
        /// The generation of the writer lease held through us.
        var writerLease: UInt64?
        var writerLeaseCounter: UInt64 = 0
        var lastLockRecoveredFromDeadOwner = false
        /// The writer byte is still locked for an open group after its
        /// last transaction ended (`unlockWriter(_:keptBy:)`);
        /// no lease holds it.
        var retainedWriterByte = false
        /// Who keeps it (the store's open group): told when a writer of
        /// another `LockFile` of this process finds the byte taken.
        weak var keptByteHolder: (any KeptWriterByteHolder)?
    }

    private init(path: String, databasePath: String, mode: OpenMode, readerSlotCount: Int,
                 didInitialize: Bool, fd: Int32, mapping: SharedMapping, ownPID: Int32,
                 sessionEntry: PinSlot?) {
        self.path = path
        self.databasePath = databasePath
        self.mode = mode
        self.readerSlotCount = readerSlotCount
        self.didInitialize = didInitialize
        self.fd = fd
        self.mapping = mapping
        self.ownPID = ownPID
        var state = LocalState()
        state.sessionEntry = sessionEntry
        self.local = Locked(state)
        lockFileIdentity = DataFileIdentity.of(descriptor: fd)
        WriterByteSiblings.register(self)
    }

    deinit {
        close()
        mapping.unmap()
    }

    // MARK: Opening

    /// Opens (creating when missing) the lock file of `databasePath` for a
    /// process that may write. `readerSlots` sizes a newly initialized file.
    package static func open(
        databasePath: String, readerSlots: Int = LockFileLayout.defaultReaderSlots
    ) throws(FirnError) -> LockFile {
        guard let lock = try open(databasePath: databasePath, readerSlots: readerSlots, mode: .readWrite) else {
            throw FirnError.misuse("\(databasePath).lock: read-write open returned no lock file")
        }
        return lock
    }

    /// Opens the lock file of `databasePath`. With `.readWrite` the result is
    /// never nil; with `.readOnlyExisting` it is nil when there is no usable
    /// lock file, and nothing is created or reinitialized (see `OpenMode`).
    ///
    /// Throws `.corrupt` when the file is not a valid lock file and other
    /// processes hold it, `.busy` when another process holds the database
    /// exclusively, `.invalidArgument` for a slot count outside 1…65536.
    package static func open(
        databasePath: String, readerSlots: Int = LockFileLayout.defaultReaderSlots, mode: OpenMode
    ) throws(FirnError) -> LockFile? {
        let lockPath = databasePath + ".lock"
        guard (1...LockFileLayout.maximumReaderSlots).contains(readerSlots) else {
            throw FirnError.invalidArgument(
                "\(lockPath): reader slot count \(readerSlots) is outside 1…\(LockFileLayout.maximumReaderSlots)")
        }
        let flags = mode == .readWrite ? O_RDWR | O_CREAT : O_RDWR
        let fd = firn_open(lockPath, flags, 0o644)
        if fd < 0 {
            let code = -fd
            if mode == .readOnlyExisting && [ENOENT, EACCES, EROFS, EPERM].contains(code) { return nil }
            if code == ENOSPC || code == EDQUOT {
                throw FirnError.noSpace(path: lockPath, detail: "cannot create the lock file")
            }
            throw FirnError.io(path: lockPath, operation: "open", errno: code)
        }
        let lock: LockFile?
        do {
            lock = try establish(fd: fd, lockPath: lockPath, databasePath: databasePath,
                                 readerSlots: readerSlots, mode: mode)
        } catch {
            // Closing the description drops every OFD lock it took.
            Glibc.close(fd)
            throw error
        }
        if lock == nil { Glibc.close(fd) }
        return lock
    }

    /// The open protocol on a freshly opened description. On failure the
    /// caller closes `fd`; a mapping made here is unmapped here.
    private static func establish(
        fd: Int32, lockPath: String, databasePath: String, readerSlots: Int, mode: OpenMode
    ) throws(FirnError) -> LockFile? {
        try lockWaiting(fd: fd, path: lockPath, byte: LockFileLayout.initLockByte)
        defer { _ = firn_ofd_lock(fd, 2, LockFileLayout.initLockByte, 1) }

        var info = stat()
        _ = try SystemCall.run(path: lockPath, "fstat") { fstat(fd, &info) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FirnError.corrupt(path: lockPath, page: nil, version: nil,
                                    detail: "lock file \(lockPath) is not a regular file")
        }
        let fileSize = Int(info.st_size)
        let probe = firn_ofd_probe(fd, 1, LockFileLayout.sessionLockByte, 1)
        guard probe >= 0 else {
            throw FirnError.io(path: lockPath, operation: "fcntl(F_OFD_GETLK)", errno: -probe)
        }
        let othersHoldSessions = probe == 1
        let identity = DataFileIdentity.of(path: databasePath)
        let headerBytes = try readPrefix(fd: fd, path: lockPath,
                                         count: min(fileSize, LockFileLayout.readerTableOffset))
        let ownPID = getpid()

        let slotCount: Int
        let initialize: Bool
        var forgetPublication = false
        var adoptDataFile = false
        switch LockFileHeader.validate(headerBytes, fileSize: fileSize, identity: identity) {
        case let .success(header):
            if othersHoldSessions {
                slotCount = header.readerSlotCount
                initialize = false
            } else if mode == .readOnlyExisting {
                // Nobody holds it, so nobody vouches for the version it
                // publishes (FORMAT.md 11): the data file may have been
                // restored under it, a power loss may have taken the
                // versions back, or the bytes may be damaged. The file
                // decides: the published and durable versions are cleared
                // (the open then runs the check of FORMAT.md 2.1 and
                // publishes what it accepts), and the rest is kept, since a
                // read-only open does not resize the file and `firn pins`
                // still shows the pins the dead processes left.
                slotCount = header.readerSlotCount
                initialize = false
                forgetPublication = true
            } else {
                slotCount = readerSlots
                initialize = true
            }
        case let .failure(invalid):
            if othersHoldSessions {
                var liveness = LivenessProbe(fd: fd, ownPID: ownPID)
                let holders = LockFileHeader.sessionPIDs(in: headerBytes).filter { liveness.isAlive($0) }
                if invalid.kind == .otherDataFile {
                    // The database was replaced at its path while these
                    // processes had the old file open (or a replacement is
                    // finishing): a passing state, never damage.
                    throw FirnError.busy(
                        path: databasePath,
                        detail: "the database file was replaced while it was open; the lock file is still held by "
                            + describeHolders(holders) + " for the previous file; retry once they close it")
                }
                throw FirnError.corrupt(
                    path: lockPath, page: nil, version: nil,
                    detail: "lock file \(lockPath) is not a Firn lock file (\(invalid.reason)) and is in use by "
                        + describeHolders(holders) + "; it can be reinitialized once they close the database")
            }
            if mode == .readOnlyExisting {
                // A sound lock file of another data file (copied beside
                // it, or left by a file replaced since) that nobody holds
                // is taken over as above, now recording this data file;
                // anything else is left alone and read without a pin.
                guard invalid.kind == .otherDataFile, let header = invalid.header, identity.isKnown else { return nil }
                slotCount = header.readerSlotCount
                initialize = false
                forgetPublication = true
                adoptDataFile = true
            } else {
                slotCount = readerSlots
                initialize = true
            }
        }

        let size = LockFileLayout.fileSize(readerSlots: slotCount)
        if initialize { try resize(fd: fd, path: lockPath, size: size) }
        let mapping = try SharedMapping.map(fd: fd, size: size, path: lockPath)
        do throws(FirnError) {
            if initialize {
                mapping.zero(0, count: size)
                LockFileHeader.initialize(mapping, readerSlots: slotCount, dataFile: identity)
            } else if forgetPublication {
                // Under the init lock with no session held: no one can read
                // these between the two stores.
                mapping.store64(LockFileLayout.latestVersionOffset, 0)
                mapping.store64(LockFileLayout.durableVersionOffset, 0)
                if adoptDataFile {
                    mapping.store64(LockFileLayout.dataFileDeviceOffset, identity.device)
                    mapping.store64(LockFileLayout.dataFileInodeOffset, identity.inode)
                }
            } else if mode == .readWrite && identity.isKnown
                        && mapping.load64(LockFileLayout.dataFileDeviceOffset) == 0
                        && mapping.load64(LockFileLayout.dataFileInodeOffset) == 0 {
                mapping.store64(LockFileLayout.dataFileDeviceOffset, identity.device)
                mapping.store64(LockFileLayout.dataFileInodeOffset, identity.inode)
            }
            let entry = try beginSession(fd: fd, path: lockPath, mapping: mapping, ownPID: ownPID)
            return LockFile(path: lockPath, databasePath: databasePath, mode: mode, readerSlotCount: slotCount,
                            didInitialize: initialize, fd: fd, mapping: mapping, ownPID: ownPID,
                            sessionEntry: entry)
        } catch {
            mapping.unmap()
            throw error
        }
    }

    /// Takes the liveness and session read locks and registers a session
    /// entry (none when the table is full of live entries: the lock is what
    /// counts, the entry only names us).
    private static func beginSession(
        fd: Int32, path: String, mapping: SharedMapping, ownPID: Int32
    ) throws(FirnError) -> PinSlot? {
        let liveness = firn_ofd_lock(fd, 0, LockFileLayout.livenessBase + Int64(ownPID), 1)
        guard liveness == 0 else {
            throw FirnError.io(path: path, operation: "fcntl(F_OFD_SETLK) liveness lock", errno: liveness)
        }
        let session = firn_ofd_lock(fd, 0, LockFileLayout.sessionLockByte, 1)
        if session == EAGAIN || session == EACCES {
            var probe = LivenessProbe(fd: fd, ownPID: ownPID)
            let holders = sessionEntries(mapping).filter { probe.isAlive($0.pid) }.map(\.pid)
            throw FirnError.busy(path: path, detail: "the database is held exclusively by " + describeHolders(holders))
        }
        guard session == 0 else {
            throw FirnError.io(path: path, operation: "fcntl(F_OFD_SETLK) session lock", errno: session)
        }
        if let entry = claimSessionEntry(mapping, ownPID: ownPID) { return entry }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        reclaimStaleSessions(mapping, probe: &probe)
        return claimSessionEntry(mapping, ownPID: ownPID)
    }

    private static func lockWaiting(fd: Int32, path: String, byte: Int64) throws(FirnError) {
        let result = SystemCall.status { firn_ofd_lock_wait(fd, 1, byte, 1) }
        if result != 0 { throw FirnError.io(path: path, operation: "fcntl(F_OFD_SETLKW)", errno: result) }
    }

    private static func readPrefix(fd: Int32, path: String, count: Int) throws(FirnError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { SystemCall.readAll(fd, into: $0, at: 0) }
        switch read {
        case let .success(done): return Array(bytes[..<done])
        case let .failure(error): throw FirnError.io(path: path, operation: "pread", errno: error.code)
        }
    }

    /// Sizes the file to exactly `size` bytes and reserves its blocks, so a
    /// full disk shows up here rather than as SIGBUS on first touch.
    private static func resize(fd: Int32, path: String, size: Int) throws(FirnError) {
        let truncated = ftruncate(fd, off_t(size))
        if truncated != 0 {
            let code = errno
            if code == ENOSPC || code == EDQUOT {
                throw FirnError.noSpace(path: path, detail: "cannot size the lock file to \(size) bytes")
            }
            throw FirnError.io(path: path, operation: "ftruncate", errno: code)
        }
        let reserved = firn_fallocate(fd, 0, Int64(size))
        if reserved == ENOSPC || reserved == EDQUOT {
            throw FirnError.noSpace(path: path, detail: "cannot allocate the lock file's \(size) bytes")
        }
        // EOPNOTSUPP and the like: the file system cannot preallocate; go on.
    }

    // MARK: Closing

    /// Releases our pins, our session entry, the writer lock when it is
    /// held through us (from whichever thread), and every OFD lock.
    /// Idempotent; also run by deinit.
    package func close() {
        let taken = local.withLock { state -> LocalState? in
            guard !state.closed else { return nil }
            let snapshot = state
            state.closed = true
            state.pins = []
            state.sessionEntry = nil
            state.exclusive = false
            state.writerLease = nil
            state.retainedWriterByte = false
            state.keptByteHolder = nil
            return snapshot
        }
        guard let taken else { return }
        WriterByteSiblings.unregister(self)
        // A lock file truncated under us raises SIGBUS at the first touch
        // of a page past its end: then nothing in the mapping is touched
        // (the truncation lost our slots already); the OFD locks below go
        // all the same, the writer byte with them.
        if mappingIsCovered() {
            for pin in taken.pins { freeSlot(pin) }
            if let entry = taken.sessionEntry { Self.freeSessionEntry(mapping, entry) }
            if taken.writerLease != nil || taken.retainedWriterByte {
                clearWriterRecord()
                releaseWriterByte()
            }
        }
        if taken.writerLease != nil { writerQueue.release() }
        // The mapping keeps the open file description alive past close(2),
        // and OFD locks with it: drop them explicitly.
        _ = firn_ofd_lock(fd, 2, 0, 0)
        Glibc.close(fd)
    }

    /// True once `close()` ran.
    package var isClosed: Bool { local.withLock { $0.closed } }

    /// Checks that the lock file still covers our mapping; when it was
    /// truncated under us (by hand: Firn resizes a lock file only while
    /// nobody holds it), closes this `LockFile` without touching the
    /// mapping — every later access checks `isClosed` first — and throws
    /// `.corrupt` naming it. A process that keeps a lock file open for long
    /// without using it (`firn hold`) calls this as it waits, and before it
    /// lets go: a truncation is then an error, not SIGBUS. Only the moment
    /// between this check and the next access is not covered.
    package func checkMapped() throws(FirnError) {
        guard !isClosed else { return }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) < mapping.size else { return }
        close()
        throw FirnError.corrupt(
            path: path, page: nil, version: nil,
            detail: "lock file \(path) was truncated to \(info.st_size) bytes while this process had it open "
                + "(its layout needs \(mapping.size)); this process gave up its pins and session in it")
    }

    /// False when the file was truncated below the mapping (fstat failing
    /// on our own descriptor says nothing, and counts as covered).
    private func mappingIsCovered() -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return true }
        return Int(info.st_size) >= mapping.size
    }

    func ensureOpen() throws(FirnError) {
        if isClosed { throw FirnError.misuse("\(path): the lock file was closed") }
    }

    // MARK: Sessions

    /// Upgrades our session lock to exclusive without waiting. Throws
    /// `.busy` naming the processes that hold the database open.
    package func tryExclusiveSession() throws(FirnError) {
        try ensureOpen()
        let result = firn_ofd_lock(fd, 1, LockFileLayout.sessionLockByte, 1)
        if result == 0 {
            local.withLock { $0.exclusive = true }
            return
        }
        guard result == EAGAIN || result == EACCES else {
            throw FirnError.io(path: path, operation: "fcntl(F_OFD_SETLK) exclusive session", errno: result)
        }
        // A process between taking its session lock and registering holds
        // the init lock; waiting for it makes the list complete.
        let holders: [Int32]
        if (try? Self.lockWaiting(fd: fd, path: path, byte: LockFileLayout.initLockByte)) != nil {
            holders = otherSessionHolders()
            _ = firn_ofd_lock(fd, 2, LockFileLayout.initLockByte, 1)
        } else {
            holders = otherSessionHolders()
        }
        throw FirnError.busy(path: path, detail: "exclusive access refused: the database is held open by "
                                + Self.describeHolders(holders))
    }

    /// Downgrades an exclusive session back to a shared one.
    package func releaseExclusiveSession() {
        let wasExclusive = local.withLock { state -> Bool in
            guard !state.closed, state.exclusive else { return false }
            state.exclusive = false
            return true
        }
        if wasExclusive { _ = firn_ofd_lock(fd, 0, LockFileLayout.sessionLockByte, 1) }
    }

    /// The pids of live session entries other than our own, sorted (a
    /// process with several sessions appears once per session).
    package func otherSessionHolders() -> [Int32] {
        guard let own = local.withLock({ $0.closed ? nil : Optional($0.sessionEntry) }) else { return [] }
        var probe = LivenessProbe(fd: fd, ownPID: ownPID)
        return Self.sessionEntries(mapping)
            .filter { $0.index != own?.index && probe.isAlive($0.pid) }
            .map(\.pid)
            .sorted()
    }

    /// True while this `LockFile` holds the database exclusively.
    package var isExclusive: Bool { local.withLock { !$0.closed && $0.exclusive } }

    /// Completes an in-place replacement of the data file (a rename onto
    /// `databasePath`, made while this `LockFile` held the database
    /// exclusively): records the new file's device and inode in the header
    /// and publishes its current `version` — which may be lower than the
    /// replaced file's — so that openers accept the new file and readers pin
    /// its versions. Throws `.misuse` without exclusivity: a replacement
    /// made while others could open the file is exactly what loses commits.
    package func didReplaceDataFile(version: UInt64) throws(FirnError) {
        try ensureOpen()
        guard isExclusive else {
            throw FirnError.misuse("\(path): the data file may only be replaced while the database is held exclusively")
        }
        let identity = DataFileIdentity.of(path: databasePath)
        mapping.store64(LockFileLayout.dataFileDeviceOffset, identity.device)
        mapping.store64(LockFileLayout.dataFileInodeOffset, identity.inode)
        republish(version: version)
    }

    /// The data file identity recorded in the header.
    package var dataFileIdentity: DataFileIdentity {
        DataFileIdentity(device: mapping.load64(LockFileLayout.dataFileDeviceOffset),
                         inode: mapping.load64(LockFileLayout.dataFileInodeOffset))
    }

    struct SessionEntry {
        let index: Int
        let word: SlotStateWord
        let pid: Int32
    }

    static func sessionEntries(_ mapping: SharedMapping) -> [SessionEntry] {
        var entries: [SessionEntry] = []
        for index in 0..<LockFileLayout.sessionEntryCount {
            let offset = LockFileLayout.sessionEntryOffset(index)
            let word = SlotStateWord(raw: mapping.load32(offset + SessionEntryLayout.stateOffset))
            guard word.isActive else { continue }
            let pid = mapping.loadInt32(offset + SessionEntryLayout.pidOffset)
            entries.append(SessionEntry(index: index, word: word, pid: pid))
        }
        return entries
    }

    private static func claimSessionEntry(_ mapping: SharedMapping, ownPID: Int32) -> PinSlot? {
        for index in 0..<LockFileLayout.sessionEntryCount {
            let offset = LockFileLayout.sessionEntryOffset(index)
            // With our pid in the same swap (`SlotClaim`).
            guard let claimed = SlotClaim.claim(mapping, at: offset + SessionEntryLayout.stateOffset, ownPID: ownPID) else {
                continue
            }
            mapping.store64(offset + SessionEntryLayout.openedAtOffset, wallClockNanoseconds())
            mapping.store32(offset, claimed.with(state: SlotStateWord.active).raw)
            return PinSlot(index: index, generation: claimed.generation)
        }
        return nil
    }

    static func freeSessionEntry(_ mapping: SharedMapping, _ entry: PinSlot) {
        let offset = LockFileLayout.sessionEntryOffset(entry.index)
        let active = SlotStateWord(state: SlotStateWord.active, generation: entry.generation)
        _ = mapping.cas32(offset, expected: active.raw, desired: active.with(state: SlotStateWord.free).raw)
    }

    /// Frees the session entries of processes that are gone, and entries
    /// a claim left behind (`SlotClaim.reclaimAbandoned`).
    @discardableResult
    static func reclaimStaleSessions(_ mapping: SharedMapping, probe: inout LivenessProbe) -> Int {
        var freed = 0
        for entry in sessionEntries(mapping) where !probe.isAlive(entry.pid) {
            let offset = LockFileLayout.sessionEntryOffset(entry.index)
            if mapping.cas32(offset, expected: entry.word.raw, desired: entry.word.with(state: SlotStateWord.free).raw) {
                freed += 1
            }
        }
        for index in 0..<LockFileLayout.sessionEntryCount {
            let offset = LockFileLayout.sessionEntryOffset(index) + SessionEntryLayout.stateOffset
            if SlotClaim.reclaimAbandoned(mapping, at: offset, probe: &probe) { freed += 1 }
        }
        return freed
    }

    /// "pid 4242, pid 4250 (2 sessions)", or a phrase when nobody is named.
    static func describeHolders(_ pids: [Int32]) -> String {
        guard !pids.isEmpty else { return "another process (not named in the session table)" }
        var order: [Int32] = []
        var counts: [Int32: Int] = [:]
        for pid in pids {
            if counts[pid] == nil { order.append(pid) }
            counts[pid, default: 0] += 1
        }
        return order.map { pid in
            let count = counts[pid] ?? 1
            return count > 1 ? "pid \(pid) (\(count) sessions)" : "pid \(pid)"
        }.joined(separator: ", ")
    }
}
