import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// Read-only commands change nothing and create nothing.
@Suite struct ReadOnlyTests {
    static let commands: [[String]] = [
        ["info"], ["versions"], ["pins"], ["growth"], ["dump"], ["dump", "--pages"], ["dump", "--entries"], ["verify"],
    ]

    static func snapshotOf(_ dir: TemporaryDirectory) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in dir.entries() { out[name] = try Data(contentsOf: URL(fileURLWithPath: dir.file(name))) }
        return out
    }

    @Test func readCommandsLeaveNoLockFileAndChangeNoByte() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        try FileManager.default.removeItem(atPath: db + ".lock")
        let before = try Self.snapshotOf(dir)
        for command in Self.commands {
            let run = try FirnRun.run([command[0], db] + command.dropFirst())
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("without a pin"), "\(command)")
        }
        #expect(try Self.snapshotOf(dir) == before)
        #expect(!dir.entries().contains("sample.firn.lock"))
        let json = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        #expect(!json.pinned)
    }

    @Test func readCommandsWorkOnA0400FileInAReadOnlyDirectory() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        try FileManager.default.removeItem(atPath: db + ".lock")
        chmod(db, 0o400)
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        for command in Self.commands {
            let run = try FirnRun.run([command[0], db] + command.dropFirst())
            #expect(run.status == 0, "\(command): \(run.stderr)")
        }
        #expect(dir.entries() == ["sample.firn"])
    }

    @Test func aLiveDatabaseIsReadWithAPin() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db])
        #expect(hold.readLine() != nil)
        let run = try FirnRun.run(["info", db, "--json"])
        #expect(run.status == 0 && !run.stderr.contains("without a pin"))
        #expect(try run.json(InfoJSON.self).pinned)
    }
}
