import Foundation

/// Runs a program the way the SDK tests need one run — the built `firn`,
/// the app client, the compiler — and returns how it ended.
enum ChildProcess {
    struct Outcome {
        let status: Int32
        /// True when a signal ended it (a trap), false when it exited.
        let signalled: Bool
        let output: String
        let errors: String
    }

    /// The directory of the test bundle (`/proc/self/exe`): the products
    /// built with the tests (`firn`, `firn-sdk-client`) and their modules.
    static var buildDirectory: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent
    }

    /// Runs `executable` with `arguments` (and `environment` added to this
    /// process's); one that is still running after `timeout` is killed and
    /// reported as such.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Duration = .seconds(60)) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = DispatchTime.now() + .milliseconds(Int(timeout.components.seconds * 1000))
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: watchdog)
        // stderr is drained on another thread: a child that fills one pipe
        // while this reads the other would otherwise never finish.
        let errorData = Box<Data>(Data())
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errorData.value = errors.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return Outcome(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                       output: String(decoding: out, as: UTF8.self), errors: String(decoding: errorData.value, as: UTF8.self))
    }
}
