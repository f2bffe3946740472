import Foundation

/// Runs `firn-sdk-client` (Sources/firn-sdk-client: an app's `main.swift`
/// on the SDK), built next to this test bundle, and returns how it ended.
enum SDKClient {
    struct Outcome {
        let status: Int32
        /// True when a signal ended it (a trap), false when it exited.
        let signalled: Bool
        let output: String
        let errors: String
    }

    static var executable: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent + "/firn-sdk-client"
    }

    static func run(_ scenario: String, database: String, timeout: Duration = .seconds(60)) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [scenario, database]
        // A trap's backtrace would take seconds and flood the output.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Bounded: a client that hangs is killed and reported as such.
        let deadline = DispatchTime.now() + .milliseconds(Int(timeout.components.seconds * 1000))
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: watchdog)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return Outcome(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                       output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }
}
