import Foundation
import Testing
import FirnTestSupport

/// The commit log's headline scenario (issue "The toolkit catches up with
/// the commit log"), as a user runs it, every step a built binary: an
/// application (`firn demo-app cache`, the Firn SDK) caches frozen objects
/// of a version that is a commit in the log; other processes commit and
/// checkpoint several times; `firn pins` names the application (pid,
/// thread, kind frozen, its frozen objects, the bytes it holds); `firn dump
/// --version V --objects` prints exactly the objects the application
/// reads; once it lets go, the next checkpoint returns those bytes.
@Suite struct PinnedFrozenObjectsScenarioTests {
    struct Pin: Decodable {
        let version: UInt64; let pid: Int32; let threadID: Int64; let kind: String
        let frozenObjects: UInt64; let retainedBytes: UInt64
    }
    struct PinsReport: Decodable { let pins: [Pin]; let checkpointVersion: UInt64? }
    struct InfoReport: Decodable { let pinnedBytes: UInt64; let freeBytes: UInt64; let fileBytes: UInt64 }
    struct Dog: Decodable, Hashable { let id: Int; let name: String; let age: Int }
    struct DumpedObject: Decodable {
        struct Properties: Decodable { let id: Int; let name: String; let age: Int }
        let type: String
        let properties: Properties
    }

    @Test func anApplicationsFrozenObjectsAtAFrameStayReadableAndCounted() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("app.firn")
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "40"]).status == 0)
        #expect(try FirnRun.run(["checkpoint", db]).status == 0)
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "3"]).status == 0)
        let list = dir.file("cached.jsonl")
        let app = try ChildProcess(BuiltProducts.firn, ["demo-app", "cache", db, "--objects-to", list])
        let line = try #require(app.readLine())
        let version = try #require(line.split(separator: " ").dropFirst(7).first.flatMap { UInt64($0) }, "\(line)")
        let inLog = try FirnRun.run(["pins", db, "--json"]).json(PinsReport.self)
        #expect(inLog.checkpointVersion.map { $0 < version } == true, "the application pins a commit in the log")

        for _ in 0..<3 {
            #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "20"]).status == 0)
            #expect(try FirnRun.run(["checkpoint", db]).status == 0)
        }
        let pins = try FirnRun.run(["pins", db, "--json"]).json(PinsReport.self)
        let pin = try #require(pins.pins.first { $0.pid == app.pid })
        let cached = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Dog.self, from: Data($0.utf8)) }
        #expect(pin.version == version && pin.kind == "frozen" && pin.threadID != 0)
        #expect(pin.frozenObjects == UInt64(cached.count) && cached.count > 100)
        #expect(pin.retainedBytes >= 128 * 4096, "at least its checkpoint's log region")
        let text = try FirnRun.run(["pins", db]).stdout
        #expect(text.contains("THREAD") && text.contains("\(app.pid)") && text.contains("\(pin.threadID)"), "\(text)")

        let dump = try FirnRun.run(["dump", db, "--version", "\(version)", "--objects", "--type", "Dog", "--json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let dumped = try dump.stdout.split(separator: "\n").map { try JSONDecoder().decode(DumpedObject.self, from: Data($0.utf8)) }
        #expect(dumped.allSatisfy { $0.type == "Dog" })
        #expect(Set(dumped.map { Dog(id: $0.properties.id, name: $0.properties.name, age: $0.properties.age) }) == Set(cached),
                "dump --version reads exactly what the application holds")
        #expect(dumped.count == cached.count)
        #expect(try FirnRun.run(["verify", db, "--version", "\(version)"]).status == 0)

        let before = try FirnRun.run(["info", db, "--json"]).json(InfoReport.self)
        #expect(before.pinnedBytes >= pin.retainedBytes)
        app.kill(SIGTERM)
        #expect(app.waitForExit() == 0)
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "1"]).status == 0)
        #expect(try FirnRun.run(["checkpoint", db]).status == 0)
        let after = try FirnRun.run(["info", db, "--json"]).json(InfoReport.self)
        #expect(after.pinnedBytes == 0 && after.freeBytes > before.freeBytes && after.fileBytes == before.fileBytes,
                "before \(before), after \(after)")
        #expect(try FirnRun.run(["pins", db, "--json"]).json(PinsReport.self).pins.isEmpty)
        let gone = try FirnRun.run(["dump", db, "--version", "\(version)", "--objects"])
        #expect(gone.status == 64 && gone.isCleanFailure)
    }
}
