import Foundation
import FirnTestSupport

/// How a run of the built `firn` ended (`ChildProcess.Outcome`), and the
/// error contract's checks on it.
typealias FirnRun = ChildProcess.Outcome

extension ChildProcess.Outcome {
    /// Runs the built `firn ARGS` (next to the test bundle) as a user
    /// would, with a timeout: a hang is a failure, never a stuck suite.
    /// `stdin` is fed then closed (nil: /dev/null).
    static func run(_ arguments: [String], stdin: Data? = nil, directory: String? = nil,
                    timeout: Double = 60, executable: String = BuiltProducts.firn) throws -> FirnRun {
        try ChildProcess.run(executable, arguments, stdin: stdin, directory: directory,
                             timeout: .milliseconds(Int64(timeout * 1000)))
    }

    /// stderr lines other than notes: the contract allows one error line.
    var errorLines: [Substring] {
        stderr.split(separator: "\n").filter { !$0.hasPrefix("firn: note:") }
    }

    /// A one-line error, no crash, no backtrace.
    var isCleanFailure: Bool {
        !crashed && !timedOut && errorLines.count <= 1
            && !stderr.contains("Fatal error") && !stderr.contains("Stack dump") && !stderr.contains("backtrace")
    }
}
