import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// Commands that replace a database at its path (`compact` in place,
/// `compact -o --force`, `import --force`) hold it exclusively across the
/// rename and leave the lock file describing the new file: readers see the
/// new file's version, processes that have the database open keep theirs.
@Suite struct InPlaceReplacementTests {
    static func put(_ path: String, _ key: String) throws {
        let store = try Store.open(path)
        defer { store.close() }
        try store.write { txn in _ = try #require(try txn.tree("t")).put(Array(key.utf8), Array("v".utf8)) }
    }

    @Test func importForceOfAnOlderExportPublishesItsVersion() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("db.firn")
        try Self.put(db, "a")
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        for i in 0..<5 { try Self.put(db, "later-\(i)") }
        // The lock file stays (it always does after a writer): it still
        // publishes the replaced file's later version.
        #expect(FileManager.default.fileExists(atPath: db + ".lock"))
        let imported = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", db, "--force", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        struct Imported: Decodable { let version: UInt64 }
        let version = try imported.json(Imported.self).version
        for command in [["info"], ["versions"], ["dump", "--entries"], ["verify"]] {
            let run = try FirnRun.run([command[0], db] + command.dropFirst(), timeout: 30)
            #expect(run.status == 0, "firn \(command.joined(separator: " ")) after import --force: \(run.status) \(run.stderr)")
        }
        struct Info: Decodable { let currentVersion: UInt64 }
        #expect(try FirnRun.run(["info", db, "--json"]).json(Info.self).currentVersion == version)
        // And writers go on from the imported version.
        try Self.put(db, "after")
        let entries = try FirnRun.run(["dump", db, "--entries"]).stdout
        #expect(entries.contains("\"a\"") && entries.contains("\"after\"") && !entries.contains("later-0"))
    }

    @Test(arguments: ["import", "compact-o", "compact"])
    func replacingADatabaseSomeoneHasOpenIsRefusedAsBusy(_ command: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("db.firn")
        try Self.put(db, "a")
        let source = dir.file("source.firn")
        try Self.put(source, "source")
        #expect(try FirnRun.run(["export", source, "-o", dir.file("snap.lz4")]).status == 0)
        let holder = try Store.open(db)
        try holder.write { txn in _ = try #require(try txn.tree("t")).put(Array("held".utf8), [1]) }
        let arguments: [String] = switch command {
        case "import": ["import", dir.file("snap.lz4"), "-o", db, "--force"]
        case "compact-o": ["compact", source, "-o", db, "--force"]
        default: ["compact", db, "--lock-timeout", "0"]
        }
        let run = try FirnRun.run(arguments, timeout: 30)
        #expect(run.status == 75 && run.isCleanFailure, "\(command): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("pid \(getpid())"), "\(command): the holder is not named: \(run.stderr)")
        // The holder's file is still the one at the path: its commit counts.
        try holder.write { txn in _ = try #require(try txn.tree("t")).put(Array("after".utf8), [2]) }
        holder.close()
        let entries = try FirnRun.run(["dump", db, "--entries"]).stdout
        #expect(entries.contains("\"held\"") && entries.contains("\"after\""), "\(command): \(entries)")
    }
}
