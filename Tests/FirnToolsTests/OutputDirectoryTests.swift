import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// An output in a directory that does not exist: exit 73 (cannot create the
/// output), one line naming the path the user typed — never an internal
/// temporary file — and nothing created.
@Suite struct OutputDirectoryTests {
    @Test(arguments: ["load", "compact -o", "export -o", "import", "growth --svg"])
    func outputInAMissingDirectoryExits73NamingTheUsersPath(_ command: String) throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let target = dir.file("missing/out.firn")
        let arguments: [String] = switch command {
        case "load": ["load", target]
        case "compact -o": ["compact", db, "-o", target]
        case "export -o": ["export", db, "-o", target]
        case "import": ["import", dir.file("snap.lz4"), "-o", target]
        default: ["growth", db, "--svg", target]
        }
        let before = dir.entries()
        let run = try FirnRun.run(arguments, stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        #expect(run.status == 73, "\(command): \(run.stderr)")
        #expect(run.isCleanFailure, "\(command): \(run.stderr)")
        #expect(run.stderr.hasPrefix("firn: \(target): "), "\(command): \(run.stderr)")
        #expect(!run.stderr.contains("creating-") && !run.stderr.contains("firn-tmp"), "\(command): \(run.stderr)")
        #expect(run.stderr.contains("does not exist"), "\(command): \(run.stderr)")
        #expect(dir.entries() == before)
    }

    /// `-o DIR --force` where DIR is a directory did all the work, then
    /// failed "rename into place failed: Is a directory" (74): refused first.
    @Test(arguments: ["compact -o", "export -o", "import"])
    func aDirectoryAsTheOutputIsRefusedBeforeTheWork(_ command: String) throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let target = dir.file("out")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let arguments: [String] = switch command {
        case "compact -o": ["compact", db, "-o", target, "--force", "--progress"]
        case "export -o": ["export", db, "-o", target, "--force", "--progress"]
        default: ["import", dir.file("snap.lz4"), "-o", target, "--force", "--progress"]
        }
        let before = dir.entries()
        let run = try FirnRun.run(arguments)
        #expect(run.status == 73, "\(command): \(run.stderr)")
        #expect(run.isCleanFailure, "\(command): \(run.stderr)")
        #expect(run.stderr == "firn: \(target): cannot create: is a directory (name a file to write)\n", "\(command): \(run.stderr)")
        #expect(dir.entries() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
    }
}
