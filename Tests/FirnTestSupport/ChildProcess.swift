import FirnCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program the tests run as a child process: the built `firn`,
/// `firn-testkit`, `firn-sdk-client`, the compiler.
///
/// Two ways: `ChildProcess.run` runs one to its end and returns its exit
/// status and output (`Outcome`); an instance is a child still running,
/// whose stdout is read line by line with a timeout, that is signalled and
/// waited for, and that is killed (SIGKILL) and reaped on deinit if still
/// running, so a failing test never leaves children behind.
///
/// Either way, stderr (and in `run`, stdout) is drained by a thread of its
/// own while the test reads: a child that fills one pipe while the test
/// reads the other would otherwise never finish. Threads of their own, not
/// Dispatch's global queue: in the whole `swift test` on 2 cores, other
/// suites' blocking work can hold that queue's threads for seconds, and a
/// read that has not run yet loses the output (or leaves the child blocked
/// on a full pipe).
package final class ChildProcess: @unchecked Sendable {
    /// How a child run to its end ended.
    package struct Outcome: Sendable {
        package let status: Int32
        package let stdout: String
        package let stderr: String
        /// True when a signal ended the process (a crash, a trap, or the
        /// kill at the timeout).
        package let crashed: Bool
        package let timedOut: Bool

        package init(status: Int32, stdout: String, stderr: String, crashed: Bool, timedOut: Bool) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.crashed = crashed
            self.timedOut = timedOut
        }

        /// Decodes stdout as JSON.
        package func json<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONDecoder().decode(type, from: Data(stdout.utf8))
        }
    }

    package enum Failure: Error, CustomStringConvertible {
        case notExecutable(String)
        package var description: String {
            switch self {
            case let .notExecutable(path):
                return "\(path) is not an executable file (build the products with `swift build --build-tests`)"
            }
        }
    }

    package let arguments: [String]
    private let child: SpawnedProcess
    /// The read end of the child's stdout, read only by `readLine`.
    private let output: Int32
    private let errors: Drain
    private var buffered: [UInt8] = []

    package var pid: Int32 { child.pid }
    /// False once the child exited (and was reaped).
    package var isRunning: Bool { child.exit == nil }
    /// True when it ended by a signal (false while it runs).
    package var wasSignalled: Bool { child.exit?.signalled ?? false }

    /// Starts `executable` with `arguments` (and `environment` added to
    /// this process's); stdin is the read end of `input` when given, else
    /// /dev/null. Stdout is read only by `readLine`: a child that writes
    /// more than the pipe holds, unread, blocks.
    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                 input: Pipe? = nil) throws {
        self.arguments = arguments
        try Self.checkExecutable(executable)
        child = try SpawnedProcess(executable, arguments, environment: environment, directory: nil,
                                   stdin: input?.fileHandleForReading.fileDescriptor)
        // The child has its copy; a write after it is gone fails (EPIPE).
        try? input?.fileHandleForReading.close()
        output = child.output
        errors = Drain(child.errors)
    }

    /// Starts `firn-testkit ARGS…` (`BuiltProducts.testkit`).
    package static func testkit(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(BuiltProducts.testkit, arguments)
    }

    deinit {
        if isRunning {
            kill(SIGKILL)
            _ = waitForExit(timeout: .seconds(10))
        }
        close(output)
    }

    /// The next line of stdout (without the newline), or nil when none
    /// arrives within `timeout` or stdout closes first.
    ///
    /// What is already in the pipe is always read, even when this thread
    /// runs only after the deadline (a loaded machine may deschedule it for
    /// that long): the pipe is polled once more without waiting before nil
    /// is returned. So after a child's death, reading until nil gets every
    /// line it wrote, whatever the timeout.
    package func readLine(timeout: Duration = .seconds(30)) -> String? {
        let fd = output
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

    /// Waits for the line "ready"; false (see `errorOutput()` for why) when
    /// the child fails or is too slow.
    package func waitUntilReady(timeout: Duration = .seconds(20)) -> Bool {
        readLine(timeout: timeout) == "ready"
    }

    /// What the child wrote to stderr so far; after it exited, all of it.
    package func errorOutput() -> String {
        let data = isRunning ? errors.collected : errors.wait(timeout: .seconds(10))
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends `signal` to the child.
    package func kill(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// Waits for the child to exit; its termination status (the exit code,
    /// or the signal number when killed), or nil on timeout.
    @discardableResult
    package func waitForExit(timeout: Duration = .seconds(20)) -> Int32? {
        child.wait(timeout: timeout)?.status
    }

    /// Runs `executable` with `arguments` (and `environment` added to this
    /// process's, in `directory` when given) to its end; `stdin` is fed
    /// then closed (nil: /dev/null). One still running after `timeout` is
    /// killed (SIGKILL) and reported as such.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                            stdin: Data? = nil, directory: String? = nil,
                            timeout: Duration = .seconds(60)) throws -> Outcome {
        // Feeding stdin to a command that exits without reading it must fail
        // the write (EPIPE), not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        try checkExecutable(executable)
        let input = try stdin.map { _ in try SpawnedProcess.pipe() }
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(executable, arguments, environment: environment, directory: directory,
                                       stdin: input?.read)
        } catch {
            if let input { close(input.read); close(input.write) }
            throw error
        }
        let stdout = Drain(child.output), stderr = Drain(child.errors)
        if let stdin, let input {
            // The child has its copy; the feeding thread owns the write end.
            close(input.read)
            Thread {
                stdin.withUnsafeBytes { bytes in _ = SystemCall.writeAll(input.write, bytes) }
                close(input.write)
            }.start()
        }
        var timedOut = false
        var exit = child.wait(timeout: timeout)
        if exit == nil {
            timedOut = true
            Glibc.kill(child.pid, SIGKILL)
            exit = child.wait(timeout: .seconds(600))
        }
        // The reads end at the child's exit (end of file); generous, in case
        // a loaded machine runs the reader threads late.
        let outData = stdout.wait(timeout: .seconds(60)), errData = stderr.wait(timeout: .seconds(60))
        return Outcome(status: exit?.status ?? -1,
                       stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self),
                       crashed: exit?.signalled ?? true, timedOut: timedOut)
    }

    private static func checkExecutable(_ executable: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw Failure.notExecutable(executable) }
    }
}

/// Reads a pipe to its end on a thread of its own, keeping what it read.
private final class Drain: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let finished = DispatchSemaphore(value: 0)

    /// Reads `fd` and closes it at its end.
    init(_ fd: Int32) {
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { buffer in
                    (try? SystemCall.result({ read(fd, buffer.baseAddress, buffer.count) }).get()) ?? -1
                }
                guard count > 0 else { break }
                lock.withLock { data.append(contentsOf: chunk[..<count]) }
            }
            close(fd)
            finished.signal()
        }.start()
    }

    /// What was read so far.
    var collected: Data { lock.withLock { data } }

    /// Everything, once the pipe reached its end (or what was read by `timeout`).
    func wait(timeout: Duration) -> Data {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { finished.signal() }
        return collected
    }
}
