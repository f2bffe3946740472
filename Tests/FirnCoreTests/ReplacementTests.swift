import Foundation
import Synchronization
import Testing
@testable import FirnCore
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// A database replaced at its path (in-place compaction, import --force) is
/// never written through a descriptor of the replaced file, and a replaced
/// file is never reported as damage. The interleavings that lost commits
/// are made deterministic here by replacing the file from inside the I/O
/// wrapper, which runs between the opener's open(2) and its session lock.
@Suite struct ReplacementTests {
    static func keys(_ path: String) throws -> Set<String> {
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        var keys = Set<String>()
        try snapshot.tree("t")?.forEach { key, _ in keys.insert(String(decoding: key, as: UTF8.self)); return true }
        return keys
    }

    @Test func aStoreWhoseFileIsReplacedWhileOpeningCommitsIntoTheNewFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.firn")
        let seed = try Store.open(path, options: .pageCommits)
        try seed.put("before")
        let replacement = dir.file("compacted.firn")
        try FileReplacement.compactedCopy(of: seed, to: replacement)
        let version = try seed.currentVersion
        seed.close()

        let replaced = Mutex(false)
        var options = StoreOptions.pageCommits
        options.wrapIO = { io in
            // Runs right after open(2) of the data file, before the lock
            // file: the compactor finishes its rename exactly here.
            let first = replaced.withLock { done in defer { done = true }; return !done }
            if first { try? FileReplacement.replaceInPlace(path, with: replacement, version: version) }
            return io
        }
        let store = try Store.open(path, options: options)
        #expect(replaced.withLock { $0 })
        try store.put("acknowledged")
        store.close()
        // The commit is in the file at the path, not in the replaced inode.
        #expect(try Self.keys(path) == ["before", "acknowledged"])
    }

    @Test func aFileReplacedUnderAnOpenDatabaseIsBusyNotCorrupt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.firn")
        let holder = try Store.open(path, options: .pageCommits)
        try holder.put("one")
        let other = dir.file("other.firn")
        try FileReplacement.compactedCopy(of: holder, to: other)
        // Replaced without the protocol (mv by hand) while `holder` has the
        // old file open: the lock file still belongs to the old file.
        #expect(rename(other, path) == 0)
        do {
            let store = try Store.open(path, options: .pageCommits)
            store.close()
            Issue.record("opened a database whose lock file belongs to the replaced file")
        } catch {
            guard case let .busy(_, detail) = error else {
                Issue.record("expected busy, got \(error)")
                return
            }
            #expect(detail.contains("replaced") && detail.contains("pid \(getpid())"), "\(detail)")
        }
        holder.close()
        // Once the old file's holders are gone, the new file opens.
        let store = try Store.open(path, options: .pageCommits)
        try store.put("two")
        store.close()
        #expect(try Self.keys(path) == ["one", "two"])
    }

    @Test func anImportedOlderFilePublishesItsOwnVersion() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.firn")
        let store = try Store.open(path, options: .pageCommits)
        try store.put("a")
        let older = dir.file("older.firn")
        try FileReplacement.compactedCopy(of: store, to: older)
        let olderVersion = try store.currentVersion
        for i in 0..<5 { try store.put("later-\(i)") }
        store.close()
        // Someone else keeps the lock file initialized (a read-only reader
        // later must not see the old file's higher version as published).
        let keeper = try LockFile.open(databasePath: path)
        keeper.close()
        try FileReplacement.replaceInPlace(path, with: older, version: olderVersion)
        var options = StoreOptions.pageCommits
        options.readOnly = true
        let reader = try Store.open(path, options: options)
        defer { reader.close() }
        let snapshot = try reader.snapshot()
        defer { snapshot.close() }
        #expect(snapshot.version == olderVersion)
        #expect(try reader.currentVersion == olderVersion)
    }

    /// `compactInPlaceIfAlone` leaves the store's descriptor on the
    /// replaced file: a commit through it would be acknowledged and lost
    /// with that file, so the store refuses (busy) until it is reopened.
    /// (`CommitLogReplacementTests` has the same for a store whose current
    /// version is a log frame.)
    @Test func aStoreThatCompactedItsFileInPlaceRefusesToCommit() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.firn")
        let store = try Store.open(path, options: .pageCommits)
        try store.put("a")
        let version = try store.currentVersion
        #expect(try store.compactInPlaceIfAlone()?.version == version)
        do {
            try store.put("b")
            Issue.record("committed into the replaced file")
        } catch {
            guard case let .busy(_, detail) = error as? FirnError else {
                Issue.record("expected busy, got \(error)")
                return
            }
            #expect(detail.contains("replaced"), "\(detail)")
        }
        store.close()
        #expect(try Self.keys(path) == ["a"])
        let reopened = try Store.open(path, options: .pageCommits)
        try reopened.put("b")
        reopened.close()
        #expect(try Self.keys(path) == ["a", "b"])
    }

    @Test func replacingWithoutExclusivityIsMisuse() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.firn")
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        let lock = try LockFile.open(databasePath: path)
        defer { lock.close() }
        #expect(throws: FirnError.self) { try lock.didReplaceDataFile(version: 1) }
    }
}

/// The published version never goes back: an opener that read the commit
/// slots before another process's last commit, and then found the lock file
/// free (so reinitialized it), publishes what the file holds once it has
/// its session — not what it read before. (A stale published version made
/// an in-place compaction pack an older version and drop the newest commit.)
@Suite struct PublishedVersionTests {
    @Test func anOpenerPublishesWhatTheFileHoldsOnceItHasItsSession() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("publish.firn")
        let writer = try Store.open(path, options: .pageCommits)
        try writer.put("a")
        let writerBox = Mutex<Store?>(writer)
        var options = StoreOptions.pageCommits
        options.wrapIO = { io in
            HookedIO(io) { offset in
                // Between the opener's slot read and its lock file (its
                // first read past slot 0): the writer commits once more
                // and exits, once.
                guard offset > 0, let store = writerBox.withLock({ s in defer { s = nil }; return s }) else { return }
                try? store.put("b")
                store.close()
            }
        }
        let opener = try Store.open(path, options: options)
        defer { opener.close() }
        let latest = try #require(try opener.readSlots().current).version
        #expect(opener.lockFile?.latestVersion == latest)
        let snapshot = try opener.snapshot()
        defer { snapshot.close() }
        #expect(snapshot.version == latest)
        #expect(try snapshot.tree("t")?.get(Array("b".utf8)) != nil)
    }

    @Test func publishingNeverMovesTheVersionBack() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        defer { lock.close() }
        lock.publish(version: 7)
        lock.publish(version: 5)
        #expect(lock.latestVersion == 7)
        lock.publish(version: 9)
        #expect(lock.latestVersion == 9)
    }
}
