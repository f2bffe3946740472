import Firn
import Foundation
import Testing
import FirnTestSupport

/// The demo's application processes (hidden `firn demo-app`): real SDK
/// files and real frozen pins for `pins` and `growth`, and their bad input.
@Suite struct DemoAppTests {
    /// Same type name as the demo's Dog, other properties.
    final class Dog: Object {
        @Persisted var nickname = ""
    }

    @Test func growthListsEachPinWithItsFrozenObjectsAndBytes() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("app.firn")
        let written = try FirnRun.run(["demo-app", "write", db, "--commits", "20", "--json"]).json(DemoAppJSON.self)
        #expect(written.people == 12 && written.dogs > 0)
        let cache = try ChildProcess(BuiltProducts.firn, ["demo-app", "cache", db])
        #expect(cache.readLine()?.hasPrefix("cached \(written.dogs) frozen Dog objects of version \(written.version)") == true)
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "30"]).status == 0)
        struct GrowthJSON: Decodable {
            struct Pin: Decodable { let pid: Int32; let kind: String; let version: UInt64; let frozenObjects: UInt64; let retainedBytes: UInt64 }
            let pins: [Pin]; let topPin: Pin?; let explanation: String; let checkpointVersion: UInt64?; let currentVersion: UInt64
        }
        // The 30 commits are frames: growth says so, and the pages the pin
        // holds are replaced at a checkpoint.
        let inLog = try FirnRun.run(["growth", db, "--json"]).json(GrowthJSON.self)
        let checkpoint = try #require(inLog.checkpointVersion)
        #expect(inLog.explanation.contains("v\(checkpoint + 1)…v\(inLog.currentVersion) are ")
                    && inLog.explanation.contains("commit(s) in the log since checkpoint v\(checkpoint): the next checkpoint replaces at least")
                    && checkpoint < inLog.currentVersion,
                "\(inLog.explanation)")
        #expect(try FirnRun.run(["checkpoint", db]).status == 0)
        let json = try FirnRun.run(["growth", db, "--json"]).json(GrowthJSON.self)
        #expect(json.checkpointVersion == nil)
        let pin = try #require(json.pins.first)
        #expect(json.pins.count == 1 && json.topPin?.pid == cache.pid)
        #expect(pin.pid == cache.pid && pin.kind == "frozen" && pin.version == written.version)
        #expect(pin.frozenObjects == UInt64(written.dogs) && pin.retainedBytes > 0)
        #expect(json.explanation.contains("\(written.dogs) frozen objects"))
        let text = try FirnRun.run(["growth", db])
        #expect(text.status == 0 && text.stdout.contains("held by pins (bytes each would free alone):"))
        #expect(text.stdout.contains("pid \(cache.pid) frozen on v\(written.version) (31 behind") && text.stdout.contains("\(written.dogs) frozen objects, label \"frozen objects\""), "\(text.stdout)")
        // The pin goes with the process's last frozen object.
        cache.kill(SIGTERM)
        #expect(cache.waitForExit() == 0)
        #expect(try FirnRun.run(["growth", db, "--json"]).json(GrowthJSON.self).pins.isEmpty)
    }

    @Test func cacheReleasesAfterSecondsAndReportsJSON() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("app.firn")
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "3"]).status == 0)
        struct CacheJSON: Decodable { let path: String; let version: UInt64; let pid: Int32; let frozenObjects: Int }
        let run = try FirnRun.run(["demo-app", "cache", db, "--seconds", "0.2", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json(CacheJSON.self)
        #expect(report.frozenObjects == 18 && report.version == 5 && report.path == db)
        #expect(try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self).pins.isEmpty)
    }

    @Test func filesThatAreNotDemoDatabasesAreRefusedWithoutWriting() throws {
        let dir = try TemporaryDirectory()
        let plain = try dir.sampleDatabase()
        let before = try Data(contentsOf: URL(fileURLWithPath: plain))
        let cache = try FirnRun.run(["demo-app", "cache", plain])
        #expect(cache.status == 66 && cache.isCleanFailure && cache.stderr.contains("not a demo database"), "\(cache.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain)) == before)
        // A file whose Dog is another type: the SDK's schema check refuses it.
        let other = dir.file("other.firn")
        _ = try Database(configuration: Configuration(path: other, objectTypes: [Dog.self]))
        let write = try FirnRun.run(["demo-app", "write", other])
        #expect(write.status == 66 && write.isCleanFailure && write.stderr.contains("not a demo database") && write.stderr.contains("Dog"), "\(write.stderr)")
        for arguments in [["demo-app", "cache", dir.file("missing.firn")], ["demo-app", "write", dir.path], ["demo-app", "cache", dir.path]] {
            let run = try FirnRun.run(arguments)
            #expect(run.status == 66 && run.isCleanFailure, "\(arguments): \(run.status) \(run.stderr)")
        }
        let usage = try FirnRun.run(["demo-app", "write"])
        #expect(usage.status == 64 && usage.isCleanFailure)
        #expect(try FirnRun.run(["demo-app", "frobnicate"]).status == 64)
    }

    @Test func demoIntoAFileThatIsNotADirectoryExits73() throws {
        let dir = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("x".utf8)))
        let run = try FirnRun.run(["demo", dir.file("plain")])
        #expect(run.status == 73 && run.isCleanFailure && run.stderr.contains("not a directory"), "\(run.stderr)")
    }
}
