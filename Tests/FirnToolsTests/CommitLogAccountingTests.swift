import Foundation
import Testing
import FirnTestSupport

/// `pins`, `info`, `growth` and `versions` on the commit log, through the
/// built binary: a pin on a frame holds no page yet, and the reports say
/// what it will hold once the next checkpoint runs; space waiting for the
/// slots to move on is not space held by pins; every version says what it
/// is (checkpoint or frame) and whether it can be read.
@Suite struct CommitLogAccountingTests {
    struct NextCheckpoint: Decodable {
        let checkpoint, frames, replacedBytes, regionBytes, heldByPinsBytes: UInt64
    }
    struct PinsReport: Decodable {
        struct Pin: Decodable {
            let version: UInt64
            let pid: Int32
            let kind: String
            let retainedBytes, retainedAfterCheckpointBytes: UInt64
        }
        let pins: [Pin]
        let nextCheckpoint: NextCheckpoint?
        let checkpointVersion: UInt64?
    }
    struct InfoReport: Decodable {
        struct Tree: Decodable {
            let name: String
            let entries: UInt64
            let depth: Int
            let loggedKeys: Int?
        }
        let currentVersion, pinnedBytes, awaitingReclaimBytes, freedByNextCommitBytes: UInt64
        let nextCheckpoint: NextCheckpoint?
        let trees: [Tree]
    }
    struct GrowthReport: Decodable {
        struct Point: Decodable {
            let version: UInt64
            let heldByPinsBytes: UInt64
            let commitsSincePrevious: UInt64
        }
        let points: [Point]
        let explanation: String
    }
    struct VersionsReport: Decodable {
        struct Version: Decodable {
            let version: UInt64
            let time: String?
            let roles: [String]
            let readable: Bool
        }
        let versions: [Version]
    }

    static func json<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
        let run = try FirnRun.run(arguments + ["--json"])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return try run.json(type)
    }

    @Test func aPinOnAFrameShowsWhatTheNextCheckpointWillHold() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("log.firn")
        let (hold, version) = try LogFrames.pinnedFrame(db, checkpointed: 300, inLog: 10)
        let before = try Self.json(PinsReport.self, ["pins", db])
        let pin = try #require(before.pins.first { $0.version == version })
        let next = try #require(before.nextCheckpoint)
        #expect(pin.kind == "frozen" && pin.pid == hold.pid)
        #expect(pin.retainedBytes == 0, "a frame holds no page before the checkpoint")
        #expect(next.frames == 10 && before.checkpointVersion == next.checkpoint)
        #expect(next.regionBytes == 128 * 4096 && next.replacedBytes > next.regionBytes)
        #expect(pin.retainedAfterCheckpointBytes == next.heldByPinsBytes && next.heldByPinsBytes == next.replacedBytes)
        let text = try FirnRun.run(["pins", db]).stdout
        #expect(text.contains("AT CHECKPOINT") && text.contains("10 commit(s) in the log since checkpoint v\(next.checkpoint)"), "\(text)")
        let info = try Self.json(InfoReport.self, ["info", db])
        #expect(info.nextCheckpoint?.heldByPinsBytes == next.heldByPinsBytes && info.pinnedBytes == 0)
        #expect(info.trees.first { $0.name == "t" }?.loggedKeys == 10)

        // The checkpoint runs: the forecast was a lower bound of what the pin now holds.
        try LogFrames.checkpoint(db)
        let after = try Self.json(PinsReport.self, ["pins", db])
        let held = try #require(after.pins.first { $0.version == version })
        #expect(held.retainedBytes >= pin.retainedAfterCheckpointBytes, "held \(held.retainedBytes), forecast \(pin.retainedAfterCheckpointBytes)")
        #expect(held.retainedBytes <= pin.retainedAfterCheckpointBytes + 16 * 4096, "the forecast is close")
        #expect(after.nextCheckpoint == nil && held.retainedAfterCheckpointBytes == held.retainedBytes)
        #expect(try Self.json(InfoReport.self, ["info", db]).pinnedBytes == held.retainedBytes)

        hold.kill(SIGTERM)
        #expect(hold.waitForExit() == 0)
        try LogFrames.load(db, "b", 1)
        try LogFrames.checkpoint(db)
        try LogFrames.load(db, "b", 1)
        try LogFrames.checkpoint(db)
        #expect(try Self.json(InfoReport.self, ["info", db]).pinnedBytes == 0)
    }

    @Test func spaceWaitingForTheSlotsIsNotHeldByPins() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("log.firn")
        for round in 0..<5 {
            try LogFrames.load(db, "r\(round)", 30)
            try LogFrames.checkpoint(db)
        }
        try LogFrames.load(db, "tail", 3)
        let growth = try Self.json(GrowthReport.self, ["growth", db])
        #expect(growth.points.count >= 5)
        #expect(growth.points.allSatisfy { $0.heldByPinsBytes == 0 }, "no pin: \(growth.points.map(\.heldByPinsBytes))")
        // One point per checkpoint, each counting the frames it applied.
        #expect(growth.points.dropFirst().allSatisfy { $0.commitsSincePrevious == 29 || $0.commitsSincePrevious == 30 },
                "\(growth.points.map(\.commitsSincePrevious))")
        #expect(growth.explanation.contains("one per checkpoint"), "\(growth.explanation)")
        let info = try Self.json(InfoReport.self, ["info", db])
        #expect(info.pinnedBytes == 0 && info.awaitingReclaimBytes > 0)
        #expect(info.freedByNextCommitBytes > 0 && info.freedByNextCommitBytes < info.awaitingReclaimBytes)
        #expect(info.nextCheckpoint?.frames == 3 && info.nextCheckpoint?.heldByPinsBytes == 0)
        let text = try FirnRun.run(["info", db]).stdout
        #expect(text.contains("free after the next checkpoint") && !text.contains("free after the next commit"), "\(text)")
    }

    @Test func versionsSayWhatEachVersionIsAndWhetherItCanBeRead() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("log.firn")
        let (hold, pinned) = try LogFrames.pinnedFrame(db, checkpointed: 5, inLog: 2)
        for _ in 0..<2 {
            try LogFrames.load(db, "b", 2)
            try LogFrames.checkpoint(db)
        }
        // A tree made in the log alone: no pages until the next checkpoint.
        let lines = "\"fresh\"\t\"k\"\t\"v\"\n"
        #expect(try FirnRun.run(["load", db, "--batch", "1"], stdin: Data(lines.utf8)).status == 0)
        let report = try Self.json(VersionsReport.self, ["versions", db])
        func roles(_ version: UInt64) throws -> (Set<String>, Bool) {
            let v = try #require(report.versions.first { $0.version == version }, "version \(version) listed")
            return (Set(v.roles), v.readable)
        }
        let info = try Self.json(InfoReport.self, ["info", db])
        let current = try roles(info.currentVersion)
        #expect(current.0.isSuperset(of: ["current", "durable", "frame"]) && current.1)
        #expect(try roles(info.currentVersion - 1) == (["checkpoint"], true), "the current frame's checkpoint")
        #expect(try roles(pinned) == (["pinned", "frame"], true))
        #expect(report.versions.first { $0.version == pinned }?.time != nil, "a retired region's frame has its time")
        let fresh = try #require(info.trees.first { $0.name == "fresh" })
        #expect(fresh.depth == 0 && fresh.entries == 1 && fresh.loggedKeys == 1)
        #expect(try FirnRun.run(["info", db]).stdout.contains("all 1 key(s) in the log: no pages until the next checkpoint"))
        hold.kill(SIGTERM)
        #expect(hold.waitForExit() == 0)
    }
}
