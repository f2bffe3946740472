// Commit-log commands (docs/COMMIT-PATH.md, "The commit log"; FORMAT.md
// 8.2): the ledger workload of `commit-loop` committed through a small log
// region, so checkpoints come every few commits, mixing durable and
// deferred commits with `Store.sync()`. `Tests/FirnCoreTests/
// CommitLogCrashKillTests.swift` SIGKILLs it at random moments (or lets it
// kill itself right after a chosen write) and checks what the file holds.
import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Commit-log commands by name.
let logCommands: [String: @Sendable ([String]) throws -> Int32] = [
    // log-loop DBPATH SEED PAGES [DIE_AFTER]: opens DBPATH (durability
    // full, `commitLogPages` = PAGES; it must hold the "accounts" tree, see
    // `LedgerFormat`), prints "ready", then works forever. Each commit is a
    // ledger transfer (the total stays constant), sometimes with filler
    // puts and deletes (one commit in eight with many of them: a large
    // transaction, which checkpoints), and puts the marker
    // `LogLoopFormat.markerKey(V)` → SEED (u64 LE) into "acks". About one
    // commit in three is durable, the others deferred; while a group is
    // open, one step in four is `sync()` instead of a commit. It keeps a
    // snapshot pinned, renewed every few commits. Lines on stdout, each
    // written after the call returned, with `durableVersion` read then:
    //   "D V DUR"  durable commit of V returned
    //   "c V DUR"  deferred commit of V returned (DUR = V when it was a checkpoint)
    //   "s V DUR"  sync() returned V (the last commit's version, or one past
    //              it when no seal fitted and it checkpointed)
    // With DIE_AFTER = K the process SIGKILLs itself right after its K-th
    // write to the database file (after the write, before anything else): a
    // kill at an exact point inside a frame's or a checkpoint's writes. With
    // DIE_AFTER = rK, right after its K-th commit-record write (a
    // checkpoint's record written, not synced, not published).
    "log-loop": { arguments in
        let usage = "log-loop DBPATH SEED PAGES [DIE_AFTER]"
        guard arguments.count == 3 || arguments.count == 4, let seed = UInt64(arguments[1]),
              let pages = UInt32(arguments[2]), pages > 0 else {
            return usageError(usage)
        }
        var options = StoreOptions()
        options.create = false
        options.durability = .full
        options.commitLogPages = pages
        if arguments.count == 4 {
            let records = arguments[3].hasPrefix("r")
            guard let dieAfter = Int(arguments[3].dropFirst(records ? 1 : 0)), dieAfter > 0 else { return usageError(usage) }
            options.wrapIO = { DyingIO($0, dieAfter: dieAfter, countingRecordsOnly: records) }
        }
        var rng = TestkitGenerator(state: seed)
        let store = try openLoop(arguments[0], options)
        var pin = RenewedPin(label: "log-loop")
        while true {
            try pin.renewIfDue(store, &rng)
            let durableNow = try store.durableVersion
            if durableNow < (try store.currentVersion) && rng.next() % 4 == 0 {
                let synced = try store.sync()
                writeLine("s \(synced) \(try store.durableVersion)")
                continue
            }
            let txn = try store.beginWriteBlocking()
            guard try LogLoopFormat.stage(txn, seed: seed, rng: &rng) else {
                txn.abort()
                return 65
            }
            let durable = rng.next() % 3 == 0
            let version = try txn.commit(durability: durable ? .durable : .deferred)
            writeLine("\(durable ? "D" : "c") \(version) \(try store.durableVersion)")
            pin.committed()
        }
    },
]

/// What `log-loop` adds to the ledger workload: tree "acks", key = version
/// (u64 big-endian), value = the writing child's seed (u64 little-endian),
/// one per commit. `Tests/FirnCoreTests/CommitLogCrashKillTests.swift`
/// checks the same format; keep them in step.
enum LogLoopFormat {
    static let markerTree = "acks"

    static func markerKey(_ version: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: version >> (56 - 8 * UInt64($0))) }
    }

    static func markerValue(_ seed: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: seed >> (8 * UInt64($0))) }
    }

    /// Stages one commit in `txn`: a transfer, fillers, the marker. False
    /// (after writing why to stderr) when the ledger is not there.
    static func stage(_ txn: WriteTransaction, seed: UInt64, rng: inout TestkitGenerator) throws -> Bool {
        guard let accounts = try txn.tree(LedgerFormat.accountsTree, create: false),
              let filler = try txn.tree(LedgerFormat.fillerTree),
              let markers = try txn.tree(markerTree) else {
            FileHandleStderr.write("log-loop: the store has no \"\(LedgerFormat.accountsTree)\" tree\n")
            return false
        }
        if let problem = try LedgerFormat.transfer(in: accounts, rng: &rng) {
            FileHandleStderr.write("log-loop: \(problem)\n")
            return false
        }
        // Half the commits are a transfer alone (a one-page frame); most of
        // the rest change a few filler values (small ones fit a frame, large
        // ones checkpoint); one in eight changes many (a large transaction).
        let fillerChanges: Int
        switch rng.next() % 8 {
        case 0...3: fillerChanges = 0
        case 4...6: fillerChanges = 1 + Int(rng.next() % 3)
        default: fillerChanges = 8 + Int(rng.next() % 8)
        }
        try LedgerFormat.changeFiller(filler, times: fillerChanges, rng: &rng)
        try markers.put(markerKey(txn.version), markerValue(seed))
        return true
    }
}



