import Foundation
import Testing
import FirnTools
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// SIGINT during a command that writes: temporary files removed, exit 130,
/// nothing changed.
@Suite struct InterruptTests {
    /// Starts `firn ARGS` with stdout into a pipe nobody reads (so the
    /// command blocks once the pipe is full), and stdin from `input`.
    static func blocked(_ arguments: [String], input: Pipe? = nil, tmpdir: String? = nil) throws -> ChildProcess {
        try ChildProcess(BuiltProducts.firn, arguments, environment: tmpdir.map { ["TMPDIR": $0] } ?? [:], input: input)
    }

    @Test func interruptedExportRemovesItsTemporaryFilesAndExits130() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase(commits: 1, randomBytes: 1_000_000)
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: false)
        let process = try Self.blocked(["export", db, "-o", "-"], tmpdir: tmp)
        // Wait until it is blocked writing (the image temp file exists).
        let deadline = Date().addingTimeInterval(20)
        while ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty && Date() < deadline { usleep(5_000) }
        usleep(200_000)
        process.kill(SIGINT)
        #expect(process.waitForExit() == 130)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty)
    }

    @Test func interruptedImportLeavesNoFile() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let frame = try Data(contentsOf: URL(fileURLWithPath: dir.file("snap.lz4")))
        let input = Pipe()
        let process = try Self.blocked(["import", "-", "-o", dir.file("restored.firn")], input: input)
        // Half the frame, then nothing: import waits for more.
        try input.fileHandleForWriting.write(contentsOf: frame.prefix(frame.count / 2))
        let deadline = Date().addingTimeInterval(20)
        while !dir.entries().contains(where: { $0.hasPrefix(".restored.firn") }) && Date() < deadline { usleep(5_000) }
        usleep(100_000)
        process.kill(SIGINT)
        #expect(process.waitForExit() == 130)
        #expect(!dir.entries().contains { $0.contains("restored") })
        try? input.fileHandleForWriting.close()
    }
}
