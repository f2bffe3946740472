import Foundation
import Testing
import FirnTestSupport

/// Frames of the commit log made and pinned through the built `firn`
/// (`PinnedFrameToolTests`, `CommitLogAccountingTests`).
enum LogFrames {
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

    /// `firn checkpoint`.
    static func checkpoint(_ db: String) throws {
        let run = try FirnRun.run(["checkpoint", db])
        #expect(run.status == 0, "\(run.stderr)")
    }
}
