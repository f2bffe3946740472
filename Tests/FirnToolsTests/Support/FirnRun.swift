import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `firn` binary (next to the test bundle) as a user would,
/// with a timeout: a hang is a failure, never a stuck suite.
struct FirnRun {
    let status: Int32
    let stdout: String
    let stderr: String
    /// True when the process died of a signal (a crash) or hit the timeout.
    let crashed: Bool
    let timedOut: Bool

    /// stderr lines other than notes: the contract allows one error line.
    var errorLines: [Substring] {
        stderr.split(separator: "\n").filter { !$0.hasPrefix("firn: note:") }
    }

    /// A one-line error, no crash, no backtrace.
    var isCleanFailure: Bool {
        !crashed && !timedOut && errorLines.count <= 1
            && !stderr.contains("Fatal error") && !stderr.contains("Stack dump") && !stderr.contains("backtrace")
    }

    static func binDirectory() -> String {
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let dir = (exe as NSString).deletingLastPathComponent
            if FileManager.default.isExecutableFile(atPath: dir + "/firn") { return dir }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }

    static var executable: String { binDirectory() + "/firn" }
    static var testkit: String { binDirectory() + "/firn-testkit" }

    /// Runs `firn ARGS`; `stdin` is fed then closed (nil: /dev/null).
    static func run(_ arguments: [String], stdin: Data? = nil, directory: String? = nil,
                    timeout: Double = 60, executable: String = FirnRun.executable) throws -> FirnRun {
        // Feeding stdin to a command that exits without reading it must fail
        // the write (EPIPE), not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        let collected = Collected()
        let group = DispatchGroup()
        // The pipes are read and fed on threads of their own, not on
        // Dispatch's global queue: in the whole `swift test` on 2 cores,
        // other suites' blocking work can hold that queue's threads for
        // seconds, and a read that has not run yet loses the output (or
        // leaves the child blocked on a full pipe).
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }.start()
        }
        if let stdin {
            Thread {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
                try? input.fileHandleForWriting.close()
            }.start()
        }
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        // The reads end at the child's exit (end of file); generous, in case
        // a loaded machine runs the reader threads late.
        _ = group.wait(timeout: .now() + 60)
        return FirnRun(status: process.terminationStatus,
                       stdout: String(decoding: collected.out, as: UTF8.self),
                       stderr: String(decoding: collected.err, as: UTF8.self),
                       crashed: process.terminationReason == .uncaughtSignal, timedOut: timedOut)
    }

    /// Decodes stdout as JSON.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(stdout.utf8))
    }
}

private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var out = Data()
    private(set) var err = Data()
    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        if isOut { out = data } else { err = data }
        lock.unlock()
    }
}

/// A background process (`firn hold`, `firn-testkit lock-writer`) that
/// prints one line when ready; killed on deinit.
final class Background: @unchecked Sendable {
    let process = Process()
    private let out = Pipe()
    var pid: Int32 { process.processIdentifier }

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The first line of stdout, or nil within `timeout`.
    func firstLine(timeout: Double = 30) -> String? {
        let fd = out.fileHandleForReading.fileDescriptor
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return nil }
            if byte == 10 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    func wait(timeout: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return nil }
            usleep(5_000)
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}
