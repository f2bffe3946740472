import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// Online and in-place compaction.
@Suite struct CompactTests {
    struct CompactJSON: Decodable {
        let compacted: Bool; let inPlace: Bool; let beforeBytes: UInt64; let afterBytes: UInt64
        let reason: String?; let reclaimablePercent: Double
    }

    @Test func onlineCopyWhileAnotherProcessPinsAVersion() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db])
        #expect(hold.readLine() != nil)
        let run = try FirnRun.run(["compact", db, "-o", dir.file("packed.firn"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json(CompactJSON.self)
        #expect(report.compacted && !report.inPlace && report.afterBytes < report.beforeBytes)
        #expect(try FirnRun.run(["verify", dir.file("packed.firn")]).status == 0)
        #expect(try FirnRun.run(["dump", dir.file("packed.firn"), "--entries"]).stdout
                == FirnRun.run(["dump", db, "--entries"]).stdout)
        #expect(try FirnRun.run(["compact", db, "-o", dir.file("packed.firn")]).status == 73)
        #expect(try FirnRun.run(["compact", db, "-o", db]).status == 64)
    }

    @Test func inPlaceShrinksTheFileAndKeepsEveryEntry() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let entries = try FirnRun.run(["dump", db, "--entries"]).stdout
        let dry = try FirnRun.run(["compact", db, "--dry-run", "--json"]).json(CompactJSON.self)
        #expect(!dry.compacted && dry.reason == "dry run" && dry.afterBytes < dry.beforeBytes)
        let skipped = try FirnRun.run(["compact", db, "--if-free-over", "99", "--json"]).json(CompactJSON.self)
        #expect(!skipped.compacted && skipped.reason?.contains("--if-free-over") == true)
        let run = try FirnRun.run(["compact", db])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("→"))
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        #expect(info.fileBytes == dry.afterBytes || info.fileBytes < dry.beforeBytes)
        #expect(try FirnRun.run(["verify", db]).status == 0)
        #expect(try FirnRun.run(["dump", db, "--entries"]).stdout == entries)
        // The compacted file accepts writes.
        let load = try FirnRun.run(["load", db], stdin: Data("\"users\"\t\"new\"\t\"value\"\n".utf8))
        #expect(load.status == 0, "\(load.stderr)")
        #expect(dir.entries().filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func inPlaceIsRefusedWhileAnotherProcessHasTheFileOpen() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--label", "blocker"])
        #expect(hold.readLine() != nil)
        let started = Date()
        let run = try FirnRun.run(["compact", db, "--lock-timeout", "0.3"])
        #expect(run.status == 75 && run.isCleanFailure)
        #expect(run.stderr.contains("pid \(hold.pid)"))
        // Not the 0.3 s: `firn` itself may take seconds to start and finish
        // on a loaded machine. The holder never lets go: waiting for it fails.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        hold.kill(SIGTERM)
        #expect(hold.waitForExit() == 0)
        #expect(try FirnRun.run(["compact", db]).status == 0)
    }
}
