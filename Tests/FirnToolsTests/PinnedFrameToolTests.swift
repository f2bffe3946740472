import Foundation
import Testing
import FirnTestSupport

/// The commit log and the toolkit (FORMAT.md 7, epoch entries): a frame
/// version another process pins is read by `dump --version`, `verify
/// --version`, `compact --version -o` and `export --version` after any
/// number of checkpoints, exactly as it was, and is refused once released
/// and reclaimed. Run through the built binary.
@Suite struct PinnedFrameToolTests {
    @Test func dumpAndVerifyReadAPinnedFrameAfterItsCheckpointLeftTheSlots() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("log.firn")
        let (hold, version) = try LogFrames.pinnedFrame(db, checkpointed: 20, inLog: 5)
        let before = try FirnRun.run(["dump", db, "--entries"]).stdout
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        #expect(info.currentVersion == version)

        for round in 0..<4 {
            try LogFrames.load(db, "b", 3)
            try LogFrames.load(db, "c\(round)", 2)
            try LogFrames.checkpoint(db)
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
        try LogFrames.checkpoint(db)
        try LogFrames.load(db, "d", 1)
        try LogFrames.checkpoint(db)
        let gone = try FirnRun.run(["dump", db, "--version", "\(version)", "--entries"])
        #expect(gone.status == 64 && gone.isCleanFailure && gone.stderr.contains("not readable"), "\(gone.stderr)")
        #expect(try FirnRun.run(["verify", db]).status == 0)
    }
}
