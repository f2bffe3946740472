import Testing
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A line a `firn-testkit` child prints after a call returned.
protocol TranscriptLine {
    init?(_ text: String)
    /// The version a commit returned; nil for a line of another call.
    var committed: UInt64? { get }
}

/// The lines of one child, in order; malformed ones kept apart.
struct ChildTranscript<Line: TranscriptLine> {
    var lines: [Line] = []
    var malformed: [String] = []

    mutating func add(_ text: String) {
        if let line = Line(text) { lines.append(line) } else { malformed.append(text) }
    }

    /// Versions whose commit returned, in order.
    var commits: [UInt64] { lines.compactMap(\.committed) }
}

extension ChildProcess {
    /// Starts `firn-testkit ARGS…` and waits for its "ready": the child, or
    /// nil after recording an issue (it did not start; it is killed).
    static func readyTestkit(_ arguments: [String], _ label: String) throws -> ChildProcess? {
        let child = try ChildProcess.testkit(arguments)
        guard child.waitUntilReady(timeout: .seconds(30)) else {
            child.kill(SIGKILL)
            _ = child.waitForExit(timeout: .seconds(10))
            Issue.record("\(label): \(arguments.first ?? "") did not start: \(child.errorOutput())")
            return nil
        }
        return child
    }
}
