import FirnCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A running `firn-testkit ARGS…` child process: its pid, its stdout read
/// line by line with a timeout, signals, and waiting for its exit. Killed
/// (SIGKILL) and reaped on deinit if still running, so a failing test never
/// leaves children behind.
final class TestKitProcess: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case executableNotFound([String])
        var description: String {
            switch self {
            case let .executableNotFound(tried):
                return "firn-testkit not found (build it with `swift build --build-tests`); tried \(tried.joined(separator: ", "))"
            }
        }
    }

    let process = Process()
    let arguments: [String]
    private let output = Pipe()
    private let errors = Pipe()
    private var buffered: [UInt8] = []

    var pid: Int32 { process.processIdentifier }

    /// Starts `firn-testkit` with `arguments`.
    init(_ arguments: [String]) throws {
        self.arguments = arguments
        process.executableURL = URL(fileURLWithPath: try Self.executablePath())
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(SIGKILL)
            _ = waitForExit(timeout: .seconds(10))
        }
    }

    /// `$FIRN_TESTKIT`, else next to the test bundle (`/proc/self/exe`), else
    /// `.build/debug` under the current directory.
    static func executablePath() throws -> String {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["FIRN_TESTKIT"] { candidates.append(explicit) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent + "/firn-testkit")
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/.build/debug/firn-testkit")
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure.executableNotFound(candidates)
        }
        return found
    }

    /// The next line of stdout (without the newline), or nil when none
    /// arrives within `timeout` or stdout closes first.
    ///
    /// What is already in the pipe is always read, even when this thread
    /// runs only after the deadline (a loaded machine may deschedule it for
    /// that long): the pipe is polled once more without waiting before nil
    /// is returned. So after a child's death, reading until nil gets every
    /// line it wrote, whatever the timeout.
    func readLine(timeout: Duration) -> String? {
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            var milliseconds: Int32 = 0
            if remaining > .zero {
                let (seconds, attoseconds) = remaining.components
                milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = (try? SystemCall.result({ poll(&poller, 1, milliseconds) }).get()) ?? -1
            // Nothing there: wait on while time is left; else that was the last look.
            guard ready > 0 else {
                if remaining > .zero { continue }
                return nil
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { buffer in
                (try? SystemCall.result({ read(fd, buffer.baseAddress, buffer.count) }).get()) ?? -1
            }
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Waits for the line "ready"; false (with whatever stderr said in
    /// `lastErrorOutput`) when the child fails or is too slow.
    func waitUntilReady(timeout: Duration = .seconds(20)) -> Bool {
        readLine(timeout: timeout) == "ready"
    }

    /// What the child wrote to stderr so far (call after it exited).
    func errorOutput() -> String {
        let fd = errors.fileHandleForReading.fileDescriptor
        var collected: [UInt8] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) > 0 {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            collected.append(contentsOf: chunk[..<count])
        }
        return String(decoding: collected, as: UTF8.self)
    }

    /// Sends `signal` to the child.
    func kill(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// Waits for the child to exit; its termination status (the exit code,
    /// or the signal number when killed), or nil on timeout.
    @discardableResult
    func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            usleep(5_000)
        }
        return process.terminationStatus
    }
}
