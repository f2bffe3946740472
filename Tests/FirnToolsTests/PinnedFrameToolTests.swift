import Foundation
import Testing
import FirnTestSupport

/// The commit log and the toolkit (FORMAT.md 7, epoch entries): a frame
/// version another process pins is read by `dump --version`, `verify
/// --version`, `compact --version -o` and `export --version` after any
/// number of checkpoints, exactly as it was, and is refused once released
/// and reclaimed. Run through the built binary.
@Suite struct PinnedFrameToolTests {
    /// `firn load --batch 1` of `count` entries "prefix-i" into tree "t": one frame each.
    static func load(_ db: String, _ prefix: String, _ count: Int) throws {
        let lines = (0..<count).map { "\"t\"\t\"\(prefix)-\($0)\"\t\"value \(prefix) \($0)\"\n" }.joined()
        let run = try FirnRun.run(["load", db, "--batch", "1"], stdin: Data(lines.utf8))
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// `firn hold --kind frozen` in the background: the process and the version it pinned.
    static func hold(_ db: String) throws -> (ChildProcess, UInt64) {
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--kind", "frozen", "--label", "app"])
        let line = try #require(hold.readLine())
        let version = try #require(line.split(separator: " ").dropFirst(2).first.flatMap { UInt64($0) }, "\(line)")
        return (hold, version)
    }

    /// `checkpointed` frames of "a" and a checkpoint, then `inLog` more
    /// frames, the last of them pinned by `hold`: a frame of the log.
    static func pinnedFrame(_ db: String, checkpointed: Int, inLog: Int) throws -> (ChildProcess, UInt64) {
        try load(db, "a", checkpointed)
        try checkpoint(db)
        try load(db, "b", inLog)
        return try hold(db)
    }

    static func checkpoint(_ db: String) throws {
        let run = try FirnRun.run(["checkpoint", db])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func dumpAndVerifyReadAPinnedFrameAfterItsCheckpointLeftTheSlots() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("log.firn")
        let (hold, version) = try Self.pinnedFrame(db, checkpointed: 20, inLog: 5)
        let before = try FirnRun.run(["dump", db, "--entries"]).stdout
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        #expect(info.currentVersion == version)

        for round in 0..<4 {
            try Self.load(db, "b", 3)
            try Self.load(db, "c\(round)", 2)
            try Self.checkpoint(db)
        }
        let versions = try FirnRun.run(["versions", db]).stdout
        #expect(versions.contains("\(version) "), "\(versions)")
        let dump = try FirnRun.run(["dump", db, "--version", "\(version)", "--entries"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout == before, "the pinned frame reads as it did when it was pinned")
        let verify = try FirnRun.run(["verify", db, "--version", "\(version)"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(try FirnRun.run(["verify", db]).status == 0)
        // Copies of it: a packed image and an LZ4 snapshot hold the same entries.
        let packed = dir.file("packed.firn"), snapshot = dir.file("snap.lz4"), restored = dir.file("restored.firn")
        let compact = try FirnRun.run(["compact", db, "--version", "\(version)", "-o", packed])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(try FirnRun.run(["dump", packed, "--entries"]).stdout == before)
        let export = try FirnRun.run(["export", db, "--version", "\(version)", "-o", snapshot])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try FirnRun.run(["import", snapshot, "-o", restored]).status == 0)
        #expect(try FirnRun.run(["dump", restored, "--entries"]).stdout == before)

        hold.kill(SIGTERM)
        #expect(hold.waitForExit() == 0)
        try Self.checkpoint(db)
        try Self.load(db, "d", 1)
        try Self.checkpoint(db)
        let gone = try FirnRun.run(["dump", db, "--version", "\(version)", "--entries"])
        #expect(gone.status == 64 && gone.isCleanFailure && gone.stderr.contains("not readable"), "\(gone.stderr)")
        #expect(try FirnRun.run(["verify", db]).status == 0)
    }
}
