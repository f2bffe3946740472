import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// Each command run as a user would, text and `--json`.
@Suite struct CommandTests {
    @Test func infoReportsFormatSpaceAndTreesAsJSON() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let run = try FirnRun.run(["info", db, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let info = try run.json(InfoJSON.self)
        #expect(info.formatVersion == 2 && info.pageSize == 4096)
        #expect(info.currentVersion == 13)
        #expect(info.fileBytes >= info.liveBytes && info.liveBytes > 0)
        #expect(info.trees.map(\.name) == ["blobs", "orders", "users"])
        #expect(info.trees.first { $0.name == "users" }?.entries == 720)
        #expect(info.trees.first { $0.name == "users" }?.depth == 2)
        let text = try FirnRun.run(["info", db])
        #expect(text.status == 0 && text.stdout.contains("users") && text.stdout.contains("page size 4096"))
    }

    @Test func versionsListsCurrentPreviousAndPinned() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--label", "versions test"])
        #expect(hold.readLine()?.contains("pinned version 13") == true)
        try dir.sampleDatabase(commits: 2)
        struct VersionsJSON: Decodable {
            struct Version: Decodable { let version: UInt64; let roles: [String]; let lag: UInt64 }
            let currentVersion: UInt64
            let versions: [Version]
        }
        let run = try FirnRun.run(["versions", db, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json(VersionsJSON.self)
        #expect(report.currentVersion == 15)
        // Durable too: no group of deferred commits is open.
        #expect(report.versions.first { $0.version == 15 }?.roles == ["current", "durable"])
        #expect(report.versions.first { $0.version == 14 }?.roles == ["previous"])
        #expect(report.versions.first { $0.version == 13 }?.roles == ["pinned"])
        #expect(report.versions.first { $0.version == 13 }?.lag == 2)
    }

    @Test func pinsShowsHolderAndThresholdsExitOne() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("app.firn")
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "10"]).status == 0)
        let written = try FirnRun.run(["demo-app", "write", db, "--commits", "1", "--json"]).json(DemoAppJSON.self)
        let dogs = written.dogs
        let cache = try ChildProcess(BuiltProducts.firn, ["demo-app", "cache", db])
        let line = try #require(cache.readLine())
        #expect(line.hasPrefix("cached \(dogs) frozen Dog objects of version \(written.version)"), "\(line)")
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "5"]).status == 0)
        // The five commits are frames of the log: the pin holds pages only
        // once a checkpoint replaces the ones its version reads.
        let inLog = try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self)
        #expect(inLog.pins.first?.retainedBytes == 0 && inLog.checkpointVersion.map { $0 < inLog.latestVersion } == true)
        let inLogText = try FirnRun.run(["pins", db])
        #expect(inLogText.stdout.contains("commit(s) in the log since checkpoint v\(inLog.checkpointVersion ?? 0); "
                                          + "the next checkpoint replaces at least") && inLogText.stdout.contains("AT CHECKPOINT"),
                "\(inLogText.stdout)")
        #expect(try FirnRun.run(["checkpoint", db]).status == 0)
        let run = try FirnRun.run(["pins", db, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let pins = try run.json(PinsJSON.self)
        let pin = try #require(pins.pins.first)
        #expect(pins.pins.count == 1 && pins.checkpointVersion == nil)
        #expect(pin.pid == cache.pid && pin.kind == "frozen" && pin.label == "frozen objects")
        #expect(pin.version == written.version && pin.lag == 6 && pin.frozenObjects == UInt64(dogs) && !pin.stale)
        #expect(pin.retainedBytes > 0)

        let crossed = try FirnRun.run(["pins", db, "--max-lag", "2"])
        #expect(crossed.status == 1)
        #expect(crossed.errorLines.count == 1 && crossed.stderr.contains("6 commits behind"))
        #expect(try FirnRun.run(["readers", db, "--max-lag", "10", "--max-age", "1h", "--max-retained", "1G"]).status == 0)
        #expect(try FirnRun.run(["pins", db, "--max-retained", "1k"]).status == 1)
        #expect(try FirnRun.run(["pins", db, "--max-age", "forever"]).status == 64)
    }

    @Test func clearStaleFreesPinsOfExitedProcesses() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db])
        #expect(hold.readLine() != nil)
        hold.kill(SIGKILL)
        _ = hold.waitForExit()
        let before = try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self)
        #expect(before.pins.map(\.stale) == [true])
        let cleared = try FirnRun.run(["pins", db, "--clear-stale"])
        #expect(cleared.status == 0 && cleared.stdout.contains("cleared stale pin"))
        #expect(try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self).pins.isEmpty)
    }

    @Test func growthChartsCSVSVGAndExplains() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let text = try FirnRun.run(["growth", db, "--svg", dir.file("g.svg")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("grew") && text.stdout.contains("█"))
        let svg = try String(contentsOfFile: dir.file("g.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("polyline"))
        let csv = try FirnRun.run(["growth", db, "--csv"])
        #expect(csv.stdout.split(separator: "\n").count == 13)
        struct GrowthJSON: Decodable {
            struct Point: Decodable { let version: UInt64; let fileBytes: UInt64 }
            let points: [Point]; let explanation: String; let grewBytes: UInt64
        }
        let json = try FirnRun.run(["growth", db, "--json"]).json(GrowthJSON.self)
        #expect(json.points.count == 12 && json.grewBytes > 0 && json.explanation.hasPrefix("grew"))
    }

    @Test func dumpShowsLevelsPagesOnePageAndEntries() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let structure = try FirnRun.run(["dump", db, "--tree", "users"])
        #expect(structure.status == 0 && structure.stdout.contains("level 1 (branches)"))
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"]).json(PagesJSON.self)
        #expect(Set(pages.pages.map(\.tree)) == ["blobs", "orders", "users", "(catalog)", "(space)"])
        #expect(pages.pages.contains { $0.type == "overflow" })
        let branch = try #require(pages.pages.first { $0.type == "branch" && $0.tree == "users" })
        let page = try FirnRun.run(["dump", db, "--page", String(branch.page)])
        #expect(page.status == 0 && page.stdout.contains("branch") && page.stdout.contains("checksum ok"))
        let slot = try FirnRun.run(["dump", db, "--page", "0", "--json"])
        #expect(slot.status == 0 && slot.stdout.contains("commitRecord"))
        #expect(try FirnRun.run(["dump", db, "--page", "99999"]).status == 64)
        let entries = try FirnRun.run(["dump", db, "--entries", "--tree", "orders"])
        #expect(entries.stdout.split(separator: "\n").count == 13)
        #expect(entries.stdout.contains("\"orders\"\t\"order:0003\"\tx00010203ff"))
        #expect(try FirnRun.run(["dump", db, "--tree", "nope"]).status == 64)
    }

    @Test func dumpEntriesPipedIntoLoadRoundTrips() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let dump = try FirnRun.run(["dump", db, "--entries"])
        #expect(dump.status == 0)
        let load = try FirnRun.run(["load", dir.file("copy.firn"), "--batch", "100", "--json"], stdin: Data(dump.stdout.utf8))
        #expect(load.status == 0, "\(load.stderr)")
        struct LoadJSON: Decodable { let entries: UInt64; let created: Bool; let batches: Int }
        let report = try load.json(LoadJSON.self)
        #expect(report.created && report.entries == 720 + 12 + 3 && report.batches == 8)
        let again = try FirnRun.run(["dump", dir.file("copy.firn"), "--entries"])
        #expect(again.stdout == dump.stdout)
        let hex = try FirnRun.run(["dump", db, "--entries", "--hex", "--tree", "users"])
        let intoOne = try FirnRun.run(["load", dir.file("one.firn"), "--tree", "all"], stdin: Data(hex.stdout.utf8))
        #expect(intoOne.status == 0)
        let info = try FirnRun.run(["info", dir.file("one.firn"), "--json"]).json(InfoJSON.self)
        #expect(info.trees.map(\.name) == ["all"] && info.trees.first?.entries == 720)
        let bad = try FirnRun.run(["load", dir.file("bad.firn")], stdin: Data("\"t\"\tnot-a-field\tx00\n".utf8))
        #expect(bad.status == 65 && bad.stderr.contains("line 1") && bad.isCleanFailure)
    }

    @Test func verifyIsCleanOnAHealthyFile() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let run = try FirnRun.run(["verify", db])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("is clean"))
        struct VerifyJSON: Decodable {
            struct Inner: Decodable { let version: UInt64; let findings: [String]; let reachablePages: UInt64 }
            let clean: Bool; let verify: Inner
        }
        let json = try FirnRun.run(["verify", db, "--json", "--version", "12"]).json(VerifyJSON.self)
        #expect(json.clean && json.verify.version == 12 && json.verify.findings.isEmpty)
        #expect(try FirnRun.run(["verify", db, "--quick"]).status == 0)
        #expect(try FirnRun.run(["verify", db, "--version", "3"]).status == 64)
    }

    @Test func holdPinsUntilTheTimeRunsOutOrItIsInterrupted() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let quick = try FirnRun.run(["hold", db, "--seconds", "0.2", "--json"])
        #expect(quick.status == 0 && quick.stdout.contains("\"version\" : 13"))
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db])
        #expect(hold.readLine() != nil)
        hold.kill(SIGINT)
        #expect(hold.waitForExit() == 0)
        #expect(try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self).pins.isEmpty)
    }

    @Test func usageErrorsExit64AndHelpExits0() throws {
        #expect(try FirnRun.run(["info"]).status == 64)
        #expect(try FirnRun.run(["frobnicate"]).status == 64)
        #expect(try FirnRun.run(["info", "x.firn", "--lock-timeout", "-1"]).status == 64)
        #expect(try FirnRun.run(["dump", "x.firn", "--pages", "--entries"]).status == 64)
        let help = try FirnRun.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("compact"))
        #expect(try FirnRun.run(["--version"]).status == 0)
    }

    /// `firn checkpoint` on an application's file: the log's frames go into
    /// the trees as one new version with the same contents; run again, it
    /// writes nothing; `--json` gives the same facts.
    @Test func checkpointWritesTheLogIntoTheTreesOnce() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("app.firn")
        let written = try FirnRun.run(["demo-app", "write", db, "--commits", "8", "--json"]).json(DemoAppJSON.self)
        let before = try FirnRun.run(["dump", db, "--entries"])
        let first = try FirnRun.run(["checkpoint", db])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(first.stdout == "\(db): checkpoint written as version \(written.version + 1) (the log's changes up to version \(written.version) are in the trees)\n")
        #expect(try FirnRun.run(["dump", db, "--entries"]).stdout == before.stdout)
        struct CheckpointJSON: Decodable { let path: String; let previousVersion: UInt64; let version: UInt64; let written: Bool }
        let again = try FirnRun.run(["checkpoint", db, "--json"]).json(CheckpointJSON.self)
        #expect(again.path == db && again.previousVersion == written.version + 1 && again.version == written.version + 1 && !again.written)
        let text = try FirnRun.run(["checkpoint", db])
        #expect(text.stdout.contains("is a checkpoint already; nothing written"))
        #expect(try FirnRun.run(["verify", db]).status == 0)
        #expect(try FirnRun.run(["checkpoint"]).status == 64)
        #expect(try FirnRun.run(["checkpoint", db, "--lock-timeout", "nan"]).status == 64)
    }

    @Test func missingFileExits66WithOneLine() throws {
        let dir = try TemporaryDirectory()
        for command in ["info", "versions", "pins", "growth", "dump", "verify", "export", "checkpoint"] {
            var arguments = [command, dir.file("missing.firn")]
            if command == "export" { arguments += ["-o", dir.file("out.lz4")] }
            let run = try FirnRun.run(arguments)
            #expect(run.status == 66, "\(command): \(run.stderr)")
            #expect(run.isCleanFailure && run.stderr.hasPrefix("firn: \(dir.file("missing.firn")): no such file"))
        }
        #expect(dir.entries().isEmpty)
    }

    @Test func demoBuildsPinsAndToursEveryStep() throws {
        let dir = try TemporaryDirectory()
        let run = try FirnRun.run(["demo", dir.path], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        for step in ["$ firn info", "$ firn pins", "$ firn growth", "$ firn verify", "$ firn compact", "$ firn export", "$ firn import"] {
            #expect(run.stdout.contains(step))
        }
        #expect(run.stdout.contains("$ firn dump demo.firn --version 122 --objects --type Dog") && run.stdout.contains("  Dog(id: "))
        // Every claim it prints was checked against the file.
        #expect(run.stdout.contains("✓ dump --version 122 --objects reads exactly the ") && !run.stdout.contains("✗"), "\(run.stdout)")
        #expect(run.stdout.contains("v122 is a commit in the commit log since checkpoint v"))
        #expect(run.stdout.contains("✓ One commit and a checkpoint later, no pin holds space"))
        #expect(run.stdout.contains("pinned,frame") && run.stdout.contains("$ firn checkpoint demo.firn"))
        // The pins step names the caching child, its frozen pin and its objects.
        let cached = try #require(run.stdout.split(separator: "\n").first { $0.contains("cached ") && $0.contains("frozen Dog objects") })
        #expect(run.stdout.contains("frozen objects"))
        #expect(run.stdout.contains("Stopped the caching process"))
        _ = cached
        #expect(Set(dir.entries()).isSuperset(of: ["demo.firn", "demo-compact.firn", "demo.firn.lz4", "demo-restored.firn"]))
        // The child is gone: no live pins remain.
        #expect(try FirnRun.run(["pins", dir.file("demo.firn"), "--json"]).json(PinsJSON.self).pins.allSatisfy(\.stale))
    }

    @Test func demoWithJSONPrintsTheReportAlone() throws {
        let dir = try TemporaryDirectory()
        let run = try FirnRun.run(["demo", dir.path, "--json"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        struct DemoJSON: Decodable {
            let database: String; let commits: Int; let pinnedVersion: UInt64; let cachePID: Int32
            let frozenObjects: UInt64; let failedSteps: [String]
            let pinnedCheckpoint: UInt64?; let heldBytes: UInt64; let freeBytesBefore: UInt64; let freeBytesAfter: UInt64
        }
        let report = try run.json(DemoJSON.self)
        #expect(report.database == dir.file("demo.firn") && report.commits == 361 && report.failedSteps.isEmpty)
        #expect(report.pinnedVersion == 122 && report.frozenObjects > 600 && report.cachePID > 0)
        // The story runs on the commit log: the pinned version is a frame,
        // its pin holds at least its checkpoint's log region once
        // checkpoints ran, and the checkpoint after its release frees it.
        #expect(report.pinnedCheckpoint.map { $0 < 122 } == true)
        #expect(report.heldBytes >= 128 * 4096 && report.freeBytesAfter > report.freeBytesBefore)
    }
}
