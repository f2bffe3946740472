import Foundation
import Testing
@testable import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// The commit log (FORMAT.md 8.2) and replacement of the data file at its
/// path (FORMAT.md 11, "Replacing the data file"; in-place compaction,
/// `import --force`): a store whose log region is open — frames after its
/// checkpoint, the last ones deferred and not yet synced — never writes a
/// frame (or anything) into a file that replaced its own, and a compacted
/// copy of a version between checkpoints holds every frame's changes. The
/// multi-process races are `Tests/FirnToolsTests/LogReplacementRaceTests`.
/// Under 0.1 s.
///
/// Mutations these caught (made in the source, then reverted): the
/// writer's check that the lock file still records its own file removed
/// (the self-compacting store commits frames and a checkpoint into the
/// replaced file); the stores' log chains cached per process instead of
/// per store (the byte copy at the path is read with the old file's frames,
/// at the old file's version, and appended to after them); the packed
/// image writer ignoring the frames.
@Suite struct CommitLogReplacementTests {
    static let regionPages: UInt32 = 16

    static func records(_ store: Store) throws -> [CommitRecord] {
        try CommitSlots.read(store.io).slots.compactMap { try? $0.get() }
    }

    static func put(_ store: Store, _ key: String, _ durability: CommitDurability) throws {
        let txn = try store.beginWriteBlocking()
        try #require(try txn.tree("t")).put(Array(key.utf8), Array("v \(key)".utf8))
        try txn.commit(durability: durability)
    }

    /// A store in log mode whose published version is a deferred frame:
    /// a checkpoint ("c0"), durable frames ("d0"…), then deferred frames
    /// ("u0"…) not synced. Returns the checkpoint's version.
    static func openLogWithUnsyncedFrames(_ path: String, durable: Int = 3, deferred: Int = 2) throws -> (Store, UInt64) {
        let store = try Store.open(path, options: .commitLog(pages: Self.regionPages))
        try put(store, "c0", .durable)
        let checkpoint = try store.currentVersion
        #expect(try records(store).contains { $0.version == checkpoint && $0.logRegion != nil }, "the first commit checkpoints")
        for n in 0..<durable { try put(store, "d\(n)", .durable) }
        for n in 0..<deferred { try put(store, "u\(n)", .deferred) }
        #expect(try store.currentVersion == checkpoint + UInt64(durable + deferred), "frames, no checkpoint")
        #expect(try store.durableVersion == checkpoint + UInt64(durable), "the deferred frames are not synced")
        return (store, checkpoint)
    }

    static func keys(_ path: String, options: StoreOptions = StoreOptions()) throws -> (version: UInt64, keys: Set<String>) {
        let store = try Store.open(path, options: options)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        var keys = Set<String>()
        try snapshot.tree("t")?.forEach { key, _ in keys.insert(String(decoding: key, as: UTF8.self)); return true }
        return (snapshot.version, keys)
    }

    static func expectVerifies(_ path: String) throws {
        let report = try Verifier.verifyFile(at: path)
        #expect(report.findings.isEmpty, "\(report.findings)")
    }

    /// The protocol's replacement (exclusive session, rename, new identity
    /// recorded) is refused while a log store has the file open, its open
    /// group included; the store carries on, and its group reaches the file.
    @Test func aReplacementIsRefusedWhileALogStoreHasTheFileOpen() throws {
        let dir = try TemporaryDirectory(inMemory: true)
        let path = dir.file("db.firn")
        let (store, _) = try Self.openLogWithUnsyncedFrames(path)
        let other = dir.file("other.firn")
        try FileReplacement.compactedCopy(of: store, to: other)
        do {
            try FileReplacement.replaceInPlace(path, with: other, version: 1)
            Issue.record("replaced the file under an open store")
        } catch {
            guard case .busy = error as? FirnError else {
                Issue.record("expected busy, got \(error)")
                return
            }
        }
        try Self.put(store, "after", .deferred)
        let version = try store.sync()
        store.close()
        let (reopened, keys) = try Self.keys(path, options: StoreOptions.commitLog(pages: Self.regionPages))
        #expect(reopened == version)
        #expect(keys == ["c0", "d0", "d1", "d2", "u0", "u1", "after"])
        try Self.expectVerifies(path)
    }

    /// Replaced by hand (a rename without the protocol) while the store has
    /// its log open, by a byte copy of the same file taken earlier: the same
    /// region, epoch and seed, with fewer frames — exactly where an
    /// appender that went by the path or by what it knew of the old file
    /// would chain a frame. Other openers are refused (busy, "replaced");
    /// the store's commits, deferred frames, seal and checkpoint never
    /// touch the new file; once it closes, the new file opens at its own
    /// version and takes log commits of its own.
    @Test func aFileReplacedByHandUnderAnOpenLogIsNeverWrittenThrough() throws {
        let dir = try TemporaryDirectory(inMemory: true)
        let path = dir.file("db.firn")
        let (store, checkpoint) = try Self.openLogWithUnsyncedFrames(path, durable: 1, deferred: 0)
        // The byte copy: the checkpoint and one durable frame.
        let copy = dir.file("copy.firn")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let copyVersion = checkpoint + 1
        for n in 1..<3 { try Self.put(store, "d\(n)", .durable) }
        for n in 0..<2 { try Self.put(store, "u\(n)", .deferred) }
        let copyBytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(rename(copy, path) == 0)

        do {
            let opener = try Store.open(path, options: StoreOptions.commitLog(pages: Self.regionPages))
            opener.close()
            Issue.record("opened a database whose lock file belongs to the replaced file")
        } catch {
            guard case let .busy(_, detail) = error else {
                Issue.record("expected busy, got \(error)")
                return
            }
            #expect(detail.contains("replaced"), "\(detail)")
        }
        // More deferred frames, a seal, a durable frame and a checkpoint (a
        // value over an eighth of the region) through the store whose file
        // was replaced: whatever it does, it is not to the file at the path.
        try? Self.put(store, "u2", .deferred)
        _ = try? store.sync()
        try? Self.put(store, "d3", .durable)
        _ = try? store.write { txn in try txn.tree("t")?.put(Array("big".utf8), [UInt8](repeating: 7, count: 9000)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == copyBytes,
                "the store whose file was replaced wrote into the file at the path")
        store.close()

        // Nobody holds the old file now: the new one opens at its own version.
        let after = try Self.keys(path, options: StoreOptions.commitLog(pages: Self.regionPages))
        #expect(after.version == copyVersion)
        #expect(after.keys == ["c0", "d0"])
        let writer = try Store.open(path, options: StoreOptions.commitLog(pages: Self.regionPages))
        try Self.put(writer, "new0", .durable)
        try Self.put(writer, "new1", .deferred)
        #expect(try writer.sync() == copyVersion + 2)
        #expect(try !Self.records(writer).contains { $0.version > copyVersion }, "frames after the copy's own")
        writer.close()
        let reopened = try Self.keys(path, options: StoreOptions.commitLog(pages: Self.regionPages))
        #expect(reopened.version == copyVersion + 2)
        #expect(reopened.keys == ["c0", "d0", "new0", "new1"])
        try Self.expectVerifies(path)
    }

    /// `compactInPlaceIfAlone` from a store whose published version is a
    /// deferred frame: the compacted file holds every frame (deferred ones
    /// included: they were visible, and the image is synced), and the store,
    /// whose descriptor now names the replaced file, commits nothing more —
    /// a frame appended now would be acknowledged and lost with that file.
    @Test func aStoreThatCompactedItsFileInPlaceCommitsNothingIntoTheReplacedFile() throws {
        let dir = try TemporaryDirectory(inMemory: true)
        let path = dir.file("db.firn")
        let (store, _) = try Self.openLogWithUnsyncedFrames(path)
        let version = try store.currentVersion
        let summary = try #require(try store.compactInPlaceIfAlone())
        #expect(summary.version == version)
        #expect(try Self.records(store).allSatisfy { $0.version < version }, "the old file: the frames are its current version")

        var refused: [String] = []
        for (what, attempt) in [
            ("a deferred frame", { try Self.put(store, "late-deferred", .deferred) }),
            ("a durable frame", { try Self.put(store, "late-durable", .durable) }),
            ("a checkpoint", { try store.write { txn in _ = try txn.tree("t")?.put(Array("late-big".utf8), [UInt8](repeating: 1, count: 9000)) } }),
        ] as [(String, () throws -> Void)] {
            do {
                try attempt()
                Issue.record("\(what) committed after the store replaced its own file")
            } catch {
                guard case let .busy(_, detail) = error as? FirnError else {
                    Issue.record("\(what): expected busy, got \(error)")
                    continue
                }
                refused.append(detail)
            }
        }
        #expect(refused.allSatisfy { $0.contains("replaced") }, "\(refused)")
        // The open group is durable now: the packed image holding it was
        // synced before its rename. `sync()` has nothing left to do.
        #expect(try store.durableVersion == version)
        #expect(try store.sync() == version)
        store.close()

        let (reopened, keys) = try Self.keys(path, options: StoreOptions.commitLog(pages: Self.regionPages))
        #expect(reopened == version)
        #expect(keys == ["c0", "d0", "d1", "d2", "u0", "u1"])
        try Self.expectVerifies(path)
    }

    /// A compacted copy of a version between checkpoints — trees created,
    /// dropped and re-created in frames, deletes of checkpointed keys, a
    /// value over a page long, the last frames deferred and not synced —
    /// holds exactly the merged trees, with their counts, and verifies.
    @Test func aCompactedCopyOfAnUncheckpointedLogVersionHoldsEveryFrame() throws {
        let dir = try TemporaryDirectory(inMemory: true)
        let path = dir.file("db.firn")
        let store = try Store.open(path, options: StoreOptions.commitLog(pages: Self.regionPages))
        defer { store.close() }
        try store.write { txn in
            for n in 0..<50 { try txn.tree("t")?.put(Array("k\(n)".utf8), Array("checkpointed \(n)".utf8)) }
            try txn.tree("gone")?.put([1], [1])
        }
        let checkpoint = try store.currentVersion
        var model: [String: [[UInt8]: [UInt8]]] = [
            "t": Dictionary(uniqueKeysWithValues: (0..<50).map { (Array("k\($0)".utf8), Array("checkpointed \($0)".utf8)) }),
        ]
        let steps: [(CommitDurability, (WriteTransaction) throws -> Void, (inout [String: [[UInt8]: [UInt8]]]) -> Void)] = [
            (.durable, { try $0.tree("t")?.delete(Array("k3".utf8)) }, { $0["t"]?[Array("k3".utf8)] = nil }),
            (.durable, { try $0.tree("t")?.put(Array("k4".utf8), Array("framed".utf8)) }, { $0["t"]?[Array("k4".utf8)] = Array("framed".utf8) }),
            (.durable, { try $0.dropTree("gone") }, { _ in }),
            (.deferred, { try $0.tree("new")?.put([2], [UInt8](repeating: 5, count: 5000)) },
             { $0["new"] = [[2]: [UInt8](repeating: 5, count: 5000)] }),
            (.deferred, { try $0.tree("gone")?.put([3], [3]) }, { $0["gone"] = [[3]: [3]] }),
            (.deferred, { try $0.tree("t")?.put(Array("k99".utf8), Array("last".utf8)) }, { $0["t"]?[Array("k99".utf8)] = Array("last".utf8) }),
        ]
        for (durability, change, follow) in steps {
            let txn = try store.beginWriteBlocking()
            try change(txn)
            try txn.commit(durability: durability)
            follow(&model)
        }
        let version = try store.currentVersion
        #expect(version == checkpoint + UInt64(steps.count), "every step a frame")
        #expect(try store.durableVersion == checkpoint + 3)
        let snapshot = try store.snapshot(kind: .compact)
        defer { snapshot.close() }
        #expect(snapshot.log != nil)
        let copy = dir.file("copy.firn")
        let file = try POSIXFile(path: copy, writable: true, create: true)
        _ = try PackedImageWriter.write(snapshot, to: file)
        try file.sync()
        file.close()

        let opened = try Store.open(copy, options: .pageCommits)
        defer { opened.close() }
        let image = try opened.snapshot()
        defer { image.close() }
        #expect(image.version == version)
        #expect(image.log == nil, "a packed image is an ordinary record")
        #expect(Set(try image.treeNames()) == Set(model.keys))
        for (name, entries) in model {
            let tree = try #require(try image.tree(name), "tree \(name)")
            #expect(tree.count == UInt64(entries.count), "count of \(name)")
            var seen: [[UInt8]: [UInt8]] = [:]
            try tree.forEach { key, value in seen[Array(key)] = value.array; return true }
            #expect(seen == entries, "entries of \(name)")
        }
        try Self.expectVerifies(copy)
    }
}
