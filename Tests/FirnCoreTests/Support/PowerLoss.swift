import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// What the power-loss suites share: the recorded workload of page commits
/// (`PowerLossTests`, `SingleSyncCommitTests`), a recorded workload of
/// groups and its durability windows (`GroupedCommitTests`,
/// `GroupedPowerLossTests`), and opening and checking a crash image.
enum PowerLoss {
    /// One commit of the recorded workload.
    struct Commit {
        var version: UInt64
        var contents: LedgerModel.Contents
        /// Log index of the commit-record write.
        var recordIndex: Int
        /// Log index of the sync after which commit() returned.
        var returnIndex: Int
        /// Log index of the commit's first operation.
        var firstIndex: Int
    }

    /// A recorded workload: the file before it, the log, and its commits.
    struct Recording {
        var base: [UInt8]
        var baseVersion: UInt64
        var baseContents: LedgerModel.Contents
        var log: [RecordingIO.Operation]
        var commits: [Commit]
        var pageSize: Int

        func contents(of version: UInt64) -> LedgerModel.Contents? {
            version == baseVersion ? baseContents : commits.first { $0.version == version }?.contents
        }
    }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["FIRN_CRASH_SEED"].flatMap { UInt64($0) } ?? 0x90_4E_11_05
    }

    /// Runs 36 ledger commits through a `RecordingIO`, with a snapshot pinned
    /// from the 6th to the 24th commit so that pages of the versions between
    /// are recycled around it, and short-lived snapshots now and then.
    static func record(in dir: TemporaryDirectory, seed: UInt64, durability: Durability = .full) throws -> Recording {
        var options = StoreOptions.pageCommits
        options.durability = durability
        let ledger = try RecordedLedger(path: dir.file("recorded.firn"), options: options)
        let (store, recorder) = (ledger.store, ledger.recorder)
        defer { store.close() }
        var rng = SeededGenerator(seed: seed)
        var contents = ledger.baseContents
        var commits: [Commit] = []
        var pinned: (Snapshot, LedgerModel.Contents)? = nil
        for round in 0..<36 {
            if round == 6 { pinned = (try store.snapshot(label: "pinned across commits"), contents) }
            if round == 24, let (snapshot, expected) = pinned {
                #expect(try LedgerModel.same(StoreInspection.read(snapshot), expected), "the pinned snapshot changed under later commits")
                snapshot.close()
                pinned = nil
            }
            let first = recorder.count
            let txn = try store.beginWriteBlocking()
            var working = contents
            try LedgerModel.stageRandomChanges(txn, &working, &rng)
            if round % 9 == 4 {
                // A bigger commit: many filler values at once.
                for _ in 0..<12 { try LedgerModel.stageRandomChanges(txn, &working, &rng) }
            }
            let version = try txn.commit()
            contents = working
            let log = recorder.operations
            let returnIndex = log.count - 1
            let recordIndex = log.count - 2
            // The commit ends: record write into slot version % 2, then a sync.
            guard returnIndex > first, case .sync = log[returnIndex],
                  case let .write(offset, bytes) = log[recordIndex],
                  offset == version % 2 * UInt64(store.pageSize), bytes.count == CommitRecord.size else {
                Issue.record("commit v\(version) did not end with a record write and a sync")
                throw LedgerFailure("unexpected commit shape")
            }
            commits.append(Commit(version: version, contents: contents, recordIndex: recordIndex,
                                  returnIndex: returnIndex, firstIndex: first))
            if round % 5 == 2 {
                let snapshot = try store.snapshot(label: "short-lived")
                #expect(try LedgerModel.same(StoreInspection.read(snapshot), contents))
                snapshot.close()
            }
        }
        return Recording(base: ledger.base, baseVersion: ledger.baseVersion, baseContents: ledger.baseContents,
                         log: recorder.operations, commits: commits, pageSize: store.pageSize)
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw LedgerFailure("cannot read \(path)") }
        return [UInt8](data)
    }

    /// Writes `image` to a fresh file in `dir`, opens it read-write, and
    /// inspects its current version. Removes the file and its lock file.
    static func open(_ image: CrashImage, in dir: TemporaryDirectory, name: String,
                     afterwards: ((Store) throws -> Void)? = nil) throws -> Result<StoreInspection, FirnError> {
        try dir.withDatabase(name, bytes: image.bytes) { path in
            let store: Store
            do { store = try Store.open(path, options: .pageCommits) } catch let error as FirnError { return .failure(error) }
            defer { store.close() }
            let inspection: StoreInspection
            do { inspection = try StoreInspection.inspect(store) } catch let error as FirnError { return .failure(error) }
            if inspection.problems.isEmpty { try afterwards?(store) }
            return .success(inspection)
        }
    }

    /// Opens `image` (`open`) and checks it: verified clean, at one of the
    /// `allowed` versions, holding that version's `contents`. The version it
    /// opened at, or nil after recording an issue.
    static func check(_ image: CrashImage, in dir: TemporaryDirectory, name: String, allowed: [UInt64],
                      contents: (UInt64) -> LedgerModel.Contents?, label: @autoclosure () -> String) throws -> UInt64? {
        switch try open(image, in: dir, name: name) {
        case let .failure(error):
            Issue.record("\(label()): does not open: \(error)")
            return nil
        case let .success(inspection):
            guard inspection.problems.isEmpty else {
                Issue.record("\(label()): v\(inspection.version): \(inspection.problems.prefix(5))")
                return nil
            }
            guard allowed.contains(inspection.version), let expected = contents(inspection.version) else {
                Issue.record("\(label()): opened v\(inspection.version), expected \(allowed.map { "v\($0)" }.joined(separator: " or "))")
                return nil
            }
            guard LedgerModel.same(inspection.contents, expected) else {
                Issue.record("\(label()): v\(inspection.version) differs from its commit: \(StoreInspection.difference(inspection.contents, expected))")
                return nil
            }
            return inspection.version
        }
    }

    /// A recorded workload of groups: durable commits and groups of
    /// deferred ones, each group's durability window, and the contents of
    /// every version.
    struct GroupRecording {
        var base: [UInt8]
        var log: [RecordingIO.Operation]
        var contents: [UInt64: LedgerModel.Contents]
        /// Each durability window: the ops after the last sync before it
        /// through its sync (nil when the window never syncs), the durable
        /// version before it and the version its sync makes durable.
        var windows: [GroupWindow]
        var pageSize: Int

        /// Opens `image` and checks it is at `window`'s durable version
        /// before or after, whole and verified: the version, or nil after
        /// recording an issue.
        func check(_ image: CrashImage, window: GroupWindow, in dir: TemporaryDirectory,
                   name: String, label: @autoclosure () -> String) throws -> UInt64? {
            try PowerLoss.check(image, in: dir, name: name, allowed: [window.durableBefore, window.durableAfter],
                                contents: { contents[$0] }, label: label())
        }
    }

    struct GroupWindow {
        var name: String
        var indices: [Int]
        var durableBefore: UInt64
        var durableAfter: UInt64
        var members: [UInt64]
    }

    /// The windows of a recording as it closes them, each starting at the
    /// durable version the one before made.
    struct GroupWindows {
        private(set) var all: [GroupWindow] = []
        private(set) var durable: UInt64

        init(durable: UInt64) { self.durable = durable }

        /// The window of the ops `indices`, whose group of `members` was
        /// made durable at `version` (the durable version before it: never).
        mutating func close(_ name: String, indices: Range<Int>, members: [UInt64], at version: UInt64) {
            all.append(GroupWindow(name: name, indices: Array(indices), durableBefore: durable, durableAfter: version, members: members))
            durable = version
        }
    }
}

/// A fresh ledger at `path` (`LedgerModel.createStore`: its version,
/// contents and bytes) and a store on it whose I/O `RecordingIO` records.
struct RecordedLedger {
    let baseVersion: UInt64
    let baseContents: LedgerModel.Contents
    let base: [UInt8]
    let store: Store
    let recorder: RecordingIO

    init(path: String, options: StoreOptions) throws {
        (baseVersion, baseContents) = try LedgerModel.createStore(at: path)
        base = try PowerLoss.readFile(path)
        var options = options
        options.wrapIO = { RecordingIO($0) }
        store = try Store.open(path, options: options)
        recorder = try #require(store.io as? RecordingIO)
    }
}

/// Ledger commits (`LedgerModel.stageRandomChanges`) and the contents of
/// every version they made.
struct LedgerCommits {
    var rng: SeededGenerator
    private(set) var contents: LedgerModel.Contents
    private(set) var all: [UInt64: LedgerModel.Contents]

    init(seed: UInt64, version: UInt64, contents: LedgerModel.Contents) {
        rng = SeededGenerator(seed: seed)
        self.contents = contents
        all = [version: contents]
    }

    mutating func commit(_ store: Store, _ durability: CommitDurability) throws -> UInt64 {
        let txn = try store.beginWriteBlocking()
        var working = contents
        try LedgerModel.stageRandomChanges(txn, &working, &rng)
        let version = try txn.commit(durability: durability)
        contents = working
        all[version] = working
        return version
    }
}
