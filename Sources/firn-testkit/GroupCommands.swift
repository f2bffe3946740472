// Grouped-commit commands (FORMAT.md 8.1): a writer that commits deferred in
// groups and reports every durability point it was acknowledged, and a
// process that only calls `Store.sync()`, sealing another process's group.
// The kill tests SIGKILL them at random moments and check what the file
// holds against `GroupFormat`, whose contents are a function of the version.
import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Grouped-commit commands by name.
let groupCommands: [String: @Sendable ([String]) throws -> Int32] = [
    // group-loop DBPATH SEED SYNC_EVERY [DIE_AFTER_RECORD]: opens DBPATH
    // (durability full), prints "ready", then commits forever, each commit
    // as `GroupFormat.stage` says. Commits are deferred; after every
    // SYNC_EVERY-th it calls `sync()`; about one commit in nine is a
    // durable commit on top of the pending group. SYNC_EVERY 0: deferred
    // commits only, never a durability point (another process makes them). It keeps a
    // snapshot pinned, renewed every few commits. Lines on stdout, each
    // written after the call returned:
    //   "c V"  deferred commit of V returned (visible, not durable)
    //   "D V"  durable commit of V returned (V and the group before it durable)
    //   "d V"  sync() returned V (V and every version before it durable)
    // With DIE_AFTER_RECORD = K the process SIGKILLs itself right after
    // writing its K-th commit record (after the write, before the version is
    // published): a writer dying between its record and its publication.
    "group-loop": { arguments in
        guard arguments.count == 3 || arguments.count == 4, let seed = UInt64(arguments[1]),
              let syncEvery = Int(arguments[2]), syncEvery >= 0 else {
            return usageError("group-loop DBPATH SEED SYNC_EVERY [DIE_AFTER_RECORD]")
        }
        var options = StoreOptions()
        options.create = false
        // Groups of page commits (FORMAT.md 8.1); the log's are `log-loop`'s.
        options.commitLogPages = 0
        options.durability = .full
        if arguments.count == 4 {
            guard let dieAfter = Int(arguments[3]), dieAfter > 0 else {
                return usageError("group-loop DBPATH SEED SYNC_EVERY [DIE_AFTER_RECORD]")
            }
            options.wrapIO = { DyingIO($0, dieAfter: dieAfter, countingRecordsOnly: true) }
        }
        var rng = TestkitGenerator(state: seed)
        let store = try openLoop(arguments[0], options)
        var pin = RenewedPin(label: "group-loop")
        while true {
            try pin.renewIfDue(store, &rng)
            let txn = try store.beginWriteBlocking()
            try GroupFormat.stage(txn)
            let durable = syncEvery > 0 && rng.next() % 9 == 0
            let version = try txn.commit(durability: durable ? .durable : .deferred)
            writeLine("\(durable ? "D" : "c") \(version)")
            pin.committed()
            if syncEvery > 0 && pin.commits % syncEvery == 0 {
                writeLine("d \(try store.sync())")
            }
        }
    },
    // group-hold DBPATH SECONDS: opens DBPATH (the default commit log),
    // commits one deferred transaction (tree "t", key "held" → "1"), prints
    // "c V" and "ready", and sleeps SECONDS with the group open: the writer
    // byte is kept for it, so a test can watch who gets it and kill this
    // process while it keeps it.
    "group-hold": { arguments in
        guard arguments.count == 2, let seconds = Double(arguments[1]), seconds.isFinite, seconds >= 0 else {
            return usageError("group-hold DBPATH SECONDS")
        }
        var options = StoreOptions()
        options.create = false
        let store = try Store.open(arguments[0], options: options)
        // Kept while it sleeps, not let go after the usual 2 ms idle.
        store.group?.idleNanoseconds.store(3_600_000_000_000, ordering: .relaxed)
        let txn = try store.beginWriteBlocking()
        guard let tree = try txn.tree("t", create: true) else { throw GroupFormatFailure() }
        try tree.put(Array("held".utf8), Array("1".utf8))
        writeLine("c \(try txn.commit(durability: .deferred))")
        writeLine("ready")
        usleep(UInt32(min(seconds, 3_600) * 1_000_000))
        store.close()
        return 0
    },
    // sync-loop DBPATH SEED: opens DBPATH, prints "ready", then forever
    // sleeps 0–8 ms and calls `sync()`, printing "d V" when it returns V.
    "sync-loop": { arguments in
        guard arguments.count == 2, let seed = UInt64(arguments[1]) else {
            return usageError("sync-loop DBPATH SEED")
        }
        var options = StoreOptions()
        options.create = false
        // Groups of page commits (FORMAT.md 8.1); the log's are `log-loop`'s.
        options.commitLogPages = 0
        var rng = TestkitGenerator(state: seed)
        let store = try openLoop(arguments[0], options)
        while true {
            usleep(UInt32(rng.next() % 8_000))
            writeLine("d \(try store.sync())")
        }
    },
]

/// The contents of the grouped-commit workload, a function of the version
/// alone (a version lost in a crash and committed again holds the same), so
/// a recovered file can be checked against its version. Version 1 is the new
/// file (no trees). Commit V (V ≥ 2) of tree "g":
///
/// - puts "v" + V (u64 big-endian) → `value(V)`, and deletes the key of
///   V − `window` (so the tree holds the keys of the last `window` versions);
/// - puts "head" → V (u64 little-endian).
///
/// `value(V)`: `sizes[V % 7]` bytes, byte i = low byte of `V &* 151 &+ i &* 7`
/// (some sizes go to overflow chains). `Tests/FirnCoreTests/
/// GroupedCrashKillTests.swift` checks the same format; keep them in step.
enum GroupFormat {
    static let tree = "g"
    static let window: UInt64 = 40
    static let sizes = [40, 8, 700, 40, 5000, 40, 17000]

    static func key(_ version: UInt64) -> [UInt8] {
        [UInt8(ascii: "v")] + (0..<8).map { UInt8(truncatingIfNeeded: version >> (56 - 8 * UInt64($0))) }
    }

    static let headKey = Array("head".utf8)

    static func value(_ version: UInt64) -> [UInt8] {
        let size = sizes[Int(version % UInt64(sizes.count))]
        return (0..<size).map { UInt8(truncatingIfNeeded: version &* 151 &+ UInt64($0) &* 7) }
    }

    static func head(_ version: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: version >> (8 * UInt64($0))) }
    }

    /// Stages commit `txn.version`.
    static func stage(_ txn: WriteTransaction) throws {
        guard let tree = try txn.tree(tree) else { throw GroupFormatFailure() }
        let version = txn.version
        try tree.put(key(version), value(version))
        if version >= 2 + window { try tree.delete(key(version - window)) }
        try tree.put(headKey, head(version))
    }
}

struct GroupFormatFailure: Error {}

/// Passes every call through; right after the K-th write to the file —
/// or, with `countingRecordsOnly`, the K-th commit-record write (a write of
/// a record's size into a commit slot) — the process kills itself, so that
/// write is in the file and nothing after it happened (no sync, no
/// publication, no acknowledgement).
final class DyingIO: FileIO, @unchecked Sendable {
    let base: any FileIO
    let dieAfter: Int
    let countingRecordsOnly: Bool
    private var counted = 0

    init(_ base: any FileIO, dieAfter: Int, countingRecordsOnly: Bool) {
        self.base = base
        self.dieAfter = dieAfter
        self.countingRecordsOnly = countingRecordsOnly
    }

    var path: String { base.path }
    var descriptor: Int32 { base.descriptor }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        try base.write(bytes, at: offset)
        let record = (bytes.count == CommitRecord.size || bytes.count == CommitRecord.maximumSize)
            && offset <= UInt64(PageGeometry.maxPageSize)
        guard record || !countingRecordsOnly else { return }
        counted += 1
        if counted == dieAfter { kill(getpid(), SIGKILL) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try base.read(into: buffer, at: offset)
    }

    func sync() throws(FirnError) { try base.sync() }
    func extend(to size: UInt64) throws(FirnError) { try base.extend(to: size) }
    func size() throws(FirnError) -> UInt64 { try base.size() }
    func close() { base.close() }
}


