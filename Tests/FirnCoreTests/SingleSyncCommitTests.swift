import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// The single-sync commit (durability `.full`): a commit's page writes and
/// its record write share one sync, so a power loss during that sync can
/// keep any subset of them, in any order, torn by sectors. The open-time
/// check (FORMAT.md 2.1) must turn every such image into a whole version:
/// the commit's, or the one before it, which was acknowledged.
@Suite struct SingleSyncCommitTests {
    /// The operations of one commit inside its one sync window: everything
    /// before `window.first` is durable (the previous commit's sync).
    struct Window {
        var commit: PowerLoss.Commit
        var indices: [Int]
        var previousVersion: UInt64
    }

    static func windows(_ recording: PowerLoss.Recording) -> [Window] {
        var result: [Window] = []
        var previous = recording.baseVersion
        for commit in recording.commits {
            // The ops from the commit's first to the one before its only sync.
            result.append(Window(commit: commit, indices: Array(commit.firstIndex..<commit.returnIndex),
                                 previousVersion: previous))
            previous = commit.version
        }
        return result
    }

    /// The image after a crash during `window`'s sync, each op given its
    /// fate; `reversed` lands the surviving writes in reverse order (an
    /// earlier write to a sector then wins over a later one).
    static func image(_ recording: PowerLoss.Recording, durable: CrashImage, window: Window,
                      fates: [CrashImage.Fate], reversed: Bool) -> CrashImage {
        var image = durable
        let order = reversed ? Array(zip(window.indices, fates).reversed()) : Array(zip(window.indices, fates))
        for (index, fate) in order { image.apply(recording.log[index], fate: fate) }
        return image
    }

    /// Checks one image: it opens read-write, verifies clean, and holds
    /// exactly the commit's version or the one before (acknowledged before
    /// the crash). Returns the version opened, nil after recording an issue.
    static func check(_ image: CrashImage, _ recording: PowerLoss.Recording, window: Window,
                      in dir: TemporaryDirectory, name: String, label: @autoclosure () -> String) throws -> UInt64? {
        try PowerLoss.check(image, in: dir, name: name, allowed: [window.previousVersion, window.commit.version],
                            contents: recording.contents(of:), label: label())
    }

    /// For small commits, every combination of applied and dropped over the
    /// commit's writes (and extends) inside its one sync; for each
    /// combination also the surviving writes landing in reverse order, and a
    /// torn variant (the torn write rotating over the commit's writes). The
    /// image with every write applied must open at the new version: the
    /// check never rejects a whole commit.
    @Test func everyFateOfASmallCommitsWritesOpensAtAWholeVersion() throws {
        let dir = try TemporaryDirectory(prefix: "firn-single-sync", inMemory: true)
        let recording = try PowerLoss.record(in: dir, seed: PowerLoss.seed)
        let windows = Self.windows(recording)
        // The smallest commits, one early and two after the pinned snapshot was released.
        let small = windows.filter { $0.indices.count <= 10 }
        let chosen = [small.first { $0.commit.version <= recording.baseVersion + 6 },
                      small.dropFirst(small.count / 2).first, small.last].compactMap { $0 }
        let picked = chosen.reduce(into: [Window]()) { acc, w in
            if !acc.contains(where: { $0.commit.version == w.commit.version }) { acc.append(w) }
        }
        try #require(picked.count >= 2, "no small commits in the recording")
        var rng = SeededGenerator(seed: PowerLoss.seed ^ 0x5_1_5C)
        var images = 0, newer = 0, older = 0, failures = 0
        for window in picked {
            let durable = CrashImage.build(base: recording.base, log: recording.log, crashIndex: window.indices[0] - 1) { _, _ in .applied }
            let k = window.indices.count
            for combination in 0..<(1 << k) {
                let fates: [CrashImage.Fate] = (0..<k).map { combination & (1 << $0) != 0 ? .applied : .dropped }
                var variants: [(String, [CrashImage.Fate], Bool)] = [("", fates, false), ("reversed ", fates, true)]
                // Tear one applied write; which one rotates with the combination.
                let applied = (0..<k).filter { fates[$0] == .applied }
                for offset in 0..<applied.count {
                    let i = applied[(combination + offset) % applied.count]
                    if let tornFate = CrashImage.tornFate(recording.log[window.indices[i]], &rng) {
                        var t = fates
                        t[i] = tornFate
                        variants.append(("torn \(i) ", t, false))
                        break
                    }
                }
                for (kind, variantFates, reversed) in variants {
                    let image = Self.image(recording, durable: durable, window: window, fates: variantFates, reversed: reversed)
                    let opened = try Self.check(
                        image, recording, window: window, in: dir, name: "s\(images).firn",
                        label: "v\(window.commit.version) \(kind)fates \(variantFates.map(\.description).joined(separator: " "))")
                    images += 1
                    switch opened {
                    case nil: failures += 1
                    case window.commit.version?: newer += 1
                    default: older += 1
                    }
                    if combination == (1 << k) - 1 && kind.isEmpty {
                        #expect(opened == window.commit.version, "v\(window.commit.version): every write made it, yet the record was rejected")
                    }
                    if failures >= 5 {
                        Issue.record("stopping after 5 failing images")
                        return
                    }
                }
            }
        }
        print("SingleSyncCommitTests: \(images) crash images of \(picked.count) small commits "
              + "(\(picked.map { "v\($0.commit.version): \($0.indices.count) ops" }.joined(separator: ", "))); "
              + "opened at the commit \(newer)×, at the version before \(older)×")
        #expect(newer > 0 && older > 0)
    }

    /// For the bigger commits, a large seeded random sample of fates inside
    /// the one sync: each op applied, dropped or torn, in order or reversed.
    @Test func aRandomSampleOfFatesOfBigCommitsOpensAtAWholeVersion() throws {
        let dir = try TemporaryDirectory(prefix: "firn-single-sync-big", inMemory: true)
        let recording = try PowerLoss.record(in: dir, seed: PowerLoss.seed ^ 0xB16)
        let big = Self.windows(recording).filter { $0.indices.count > 10 }
        try #require(!big.isEmpty, "no big commits in the recording")
        var rng = SeededGenerator(seed: PowerLoss.seed ^ 0xB16_5A)
        var images = 0, newer = 0, failures = 0
        for window in big {
            let durable = CrashImage.build(base: recording.base, log: recording.log, crashIndex: window.indices[0] - 1) { _, _ in .applied }
            for sample in 0..<100 {
                // Bias some samples towards "almost everything made it", where a single lost page matters.
                let keepMost = sample % 3 == 0
                let fates: [CrashImage.Fate] = window.indices.map { index in
                    if keepMost && !rng.chance(1, in: 8) { return .applied }
                    return CrashImage.randomFate(recording.log[index], &rng)
                }
                let reversed = sample % 2 == 1
                let image = Self.image(recording, durable: durable, window: window, fates: fates, reversed: reversed)
                let opened = try Self.check(image, recording, window: window, in: dir, name: "b\(images).firn",
                                            label: "v\(window.commit.version) sample \(sample) reversed \(reversed)")
                images += 1
                if opened == nil { failures += 1 } else if opened == window.commit.version { newer += 1 }
                if failures >= 5 {
                    Issue.record("stopping after 5 failing images")
                    return
                }
            }
        }
        print("SingleSyncCommitTests: \(images) random crash images of \(big.count) big commits "
              + "(\(big.map { "\($0.indices.count)" }.joined(separator: ", ")) ops); opened at the commit \(newer)×")
        #expect(images >= 300)
    }

    /// The record of version N is durable but one page born in N is lost:
    /// the open picks N − 1, verifies clean, reports the rejected record,
    /// and a writer commits N again into the rejected record's slot.
    @Test func aLostPageBornInTheNewestVersionFallsBackAndTheVersionIsCommittedAgain() throws {
        let dir = try TemporaryDirectory(prefix: "firn-single-sync-lost", inMemory: true)
        let recording = try PowerLoss.record(in: dir, seed: PowerLoss.seed)
        let window = try #require(Self.windows(recording).last)
        let pageSize = UInt64(recording.pageSize)
        let intact = CrashImage.build(base: recording.base, log: recording.log, crashIndex: window.commit.returnIndex) { _, _ in .applied }
        // The catalog root: born in N (the commit changed a tree) and reached.
        let record = try #require(intact.bytes.withUnsafeBytes { bytes in
            try? CommitRecord.decode(UnsafeRawBufferPointer(
                rebasing: bytes[Int(window.commit.version % 2 * pageSize)...])).get()
        })
        #expect(record.version == window.commit.version && record.catalogRoot.birth == record.version)
        let lost = record.catalogRoot.page
        let durable = CrashImage.build(base: recording.base, log: recording.log, crashIndex: window.indices[0] - 1) { _, _ in .applied }
        let fates: [CrashImage.Fate] = window.indices.map { index in
            if case let .write(offset, _) = recording.log[index], offset / pageSize == lost { return .dropped }
            return .applied
        }
        let image = Self.image(recording, durable: durable, window: window, fates: fates, reversed: false)
        let path = dir.file("lost.firn")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(image.bytes)))

        let store = try Store.open(path, options: .pageCommits)
        let rejected = try #require(store.openCheck.rejected)
        #expect(rejected.version == window.commit.version && rejected.page == lost)
        #expect(try store.currentVersion == window.previousVersion)
        let before = try StoreInspection.inspect(store)
        #expect(before.problems.isEmpty, "\(before.problems.prefix(5))")
        #expect(before.version == window.previousVersion)
        #expect(try LedgerModel.same(before.contents, #require(recording.contents(of: window.previousVersion))))
        // The rejected version is not readable, even though its record is in a slot.
        #expect(throws: FirnError.self) { try store.snapshot(version: window.commit.version) }

        var contents = before.contents
        var rng = SeededGenerator(seed: 77)
        let txn = try store.beginWriteBlocking()
        #expect(txn.baseVersion == window.previousVersion)
        try LedgerModel.stageRandomChanges(txn, &contents, &rng)
        #expect(try txn.commit() == window.commit.version)
        let after = try StoreInspection.inspect(store)
        #expect(after.problems.isEmpty, "\(after.problems.prefix(5))")
        #expect(after.version == window.commit.version && LedgerModel.same(after.contents, contents))
        store.close()

        // A first opener again (no lock file): the new N is accepted.
        unlink(path + ".lock")
        let reopened = try Store.open(path, options: .pageCommits)
        defer { reopened.close() }
        #expect(reopened.openCheck.rejected == nil)
        let again = try StoreInspection.inspect(reopened)
        #expect(again.problems.isEmpty && again.version == window.commit.version && LedgerModel.same(again.contents, contents))
    }

    /// A read-only open without a lock file checks the newest record on
    /// every open and reads the version before a rejected one.
    @Test func aReadOnlyOpenWithoutALockFileChecksTheNewestRecord() throws {
        let dir = try TemporaryDirectory(prefix: "firn-single-sync-ro", inMemory: true)
        let path = dir.file("ro.firn")
        let store = try Store.open(path, options: .pageCommits)
        try store.write { txn in try txn.tree("t")?.put([1], [1]) }
        let good = try store.currentVersion
        try store.write { txn in try txn.tree("t")?.put([2], [2]) }
        let newest = try store.readSlots().current
        store.close()
        unlink(path + ".lock")
        // Damage the newest version's catalog root (born in it): as if its write never made it.
        let root = try #require(newest?.catalogRoot)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: root.page * UInt64(PageGeometry.defaultPageSize) + 100)
        try handle.write(contentsOf: Data([0xFF, 0xEE]))
        try handle.close()

        var options = StoreOptions.pageCommits
        options.readOnly = true
        let readOnly = try Store.open(path, options: options)
        defer { readOnly.close() }
        #expect(readOnly.lockFile == nil)
        #expect(try readOnly.currentVersion == good)
        let snapshot = try readOnly.snapshot()
        defer { snapshot.close() }
        #expect(snapshot.version == good)
        #expect(try snapshot.tree("t")?.get([2]) == nil)
        let report = Verifier.verify(snapshot, slots: try readOnly.readSlots())
        #expect(report.findings.isEmpty, "\(report.findings)")
        #expect(report.slots.contains { $0.version == good + 1 && !$0.current && $0.problem != nil })
    }

    /// The check reads exactly the pages born in the newest version that it
    /// reaches — the pages the last commit wrote (less those it wrote and
    /// freed again) — whatever the file's size.
    @Test(arguments: [200, 20_000])
    func theOpenCheckReadsOnlyThePagesTheLastCommitWrote(records: Int) throws {
        let dir = try TemporaryDirectory(prefix: "firn-single-sync-cost", inMemory: true)
        let path = dir.file("cost.firn")
        var options = StoreOptions.pageCommits
        options.durability = .none  // filling the file, not durability, is the setup
        do {
            let filler = try Store.open(path, options: options)
            defer { filler.close() }
            var n = 0
            while n < records {
                try filler.write { txn in
                    let tree = try txn.tree("t")
                    for i in n..<min(records, n + 1_000) {
                        try tree?.put(Array("key-\(100_000 + i)".utf8), [UInt8](repeating: UInt8(i & 0xFF), count: 64))
                    }
                }
                n += 1_000
            }
        }
        var recorded = StoreOptions.pageCommits
        recorded.wrapIO = { RecordingIO($0) }
        let store = try Store.open(path, options: recorded)
        let recorder = try #require(store.io as? RecordingIO)
        let first = recorder.count
        let version = try store.write { txn -> UInt64 in
            try txn.tree("t")?.put(Array("key-\(100_000 + records / 2)".utf8), [9])
            return txn.version
        }
        var written = Set<UInt64>()
        for case let .write(offset, _) in recorder.operations.dropFirst(first) where offset >= 2 * UInt64(store.pageSize) {
            written.insert(offset / UInt64(store.pageSize))
        }
        // Pages the version reaches with birth == version.
        let snapshot = try store.snapshot()
        var bornInVersion = 0
        var visited = Set<UInt64>()
        var roots = [("(catalog)", snapshot.catalogRootRef), ("(space)", snapshot.spaceRootRef)]
        for (name, entry) in try snapshot.catalog() { roots.append((name, entry.root)) }
        for (name, root) in roots {
            try snapshot.walkPages(root: root, tree: name, visited: &visited) { summary in
                if summary.birth == version { bornInVersion += 1 }
            }
        }
        let fileSize = try store.io.size()
        snapshot.close()
        store.close()
        unlink(path + ".lock")

        let reopened = try Store.open(path, options: .pageCommits)
        defer { reopened.close() }
        #expect(try reopened.currentVersion == version)
        #expect(reopened.lockFile?.didInitialize == true)
        #expect(reopened.openCheck.isValidated && reopened.openCheck.rejected == nil)
        #expect(reopened.openCheck.pagesChecked == bornInVersion)
        #expect(bornInVersion <= written.count && bornInVersion >= 1)
        // A later opener trusts the published version: no check.
        let later = try Store.open(path, options: .pageCommits)
        #expect(!later.openCheck.isValidated && later.openCheck.pagesChecked == 0)
        later.close()
        print("SingleSyncCommitTests: \(records) records, \(fileSize / UInt64(PageGeometry.defaultPageSize)) pages in the file; "
              + "the last commit wrote \(written.count) pages, the open-time check read \(reopened.openCheck.pagesChecked)")
    }
}
