import Foundation
import Testing
import FirnTools
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT during a command that writes: temporary files removed, exit 130,
/// nothing changed.
@Suite struct InterruptTests {
    /// Starts `firn ARGS` with stdout into a pipe nobody reads (so the
    /// command blocks once the pipe is full), and stdin from `stdin`.
    static func blocked(_ arguments: [String], stdin: Pipe? = nil, tmpdir: String? = nil) throws -> (Process, Pipe) {
        let process = Process()
        if let tmpdir {
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = tmpdir
            process.environment = environment
        }
        process.executableURL = URL(fileURLWithPath: FirnRun.executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        if let stdin { process.standardInput = stdin }
        try process.run()
        return (process, out)
    }

    static func waitExit(_ process: Process, timeout: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            usleep(5_000)
        }
        return process.terminationStatus
    }

    @Test func interruptedExportRemovesItsTemporaryFilesAndExits130() throws {
        let dir = try Scratch()
        let db = try dir.sampleDatabase(commits: 1, randomBytes: 1_000_000)
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: false)
        let (process, out) = try Self.blocked(["export", db, "-o", "-"], tmpdir: tmp)
        // Wait until it is blocked writing (the image temp file exists).
        let deadline = Date().addingTimeInterval(20)
        while ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty && Date() < deadline { usleep(5_000) }
        usleep(200_000)
        kill(process.processIdentifier, SIGINT)
        #expect(Self.waitExit(process) == 130)
        _ = out
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty)
    }

    @Test func interruptedImportLeavesNoFile() throws {
        let dir = try Scratch()
        let db = try dir.sampleDatabase()
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let frame = try Data(contentsOf: URL(fileURLWithPath: dir.file("snap.lz4")))
        let input = Pipe()
        let (process, _) = try Self.blocked(["import", "-", "-o", dir.file("restored.firn")], stdin: input)
        // Half the frame, then nothing: import waits for more.
        try input.fileHandleForWriting.write(contentsOf: frame.prefix(frame.count / 2))
        let deadline = Date().addingTimeInterval(20)
        while !dir.entries().contains(where: { $0.hasPrefix(".restored.firn") }) && Date() < deadline { usleep(5_000) }
        usleep(100_000)
        kill(process.processIdentifier, SIGINT)
        #expect(Self.waitExit(process) == 130)
        #expect(!dir.entries().contains { $0.contains("restored") })
        try? input.fileHandleForWriting.close()
    }
}
