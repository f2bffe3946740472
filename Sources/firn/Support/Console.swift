import FirnTools
import Foundation
import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// stdout and stderr. Writes to stdout that fail throw: a closed pipe
/// (EPIPE, the reader of `| head` is done) as `outputClosed`, which ends the
/// command quietly with exit 0 instead of dying on SIGPIPE; anything else 74.
enum Console {
    static func write(_ text: String) throws(ToolError) { try write(bytes: Array(text.utf8)) }

    /// Writes bytes as they are (a value `get` prints need not be UTF-8).
    static func write(bytes: [UInt8]) throws(ToolError) {
        if let error = SystemCall.writeAll(1, bytes) {
            if error.code == EPIPE { throw ToolError.outputClosed(path: "stdout") }
            throw ToolError.io(path: "stdout", operation: "write", errno: error.code)
        }
    }

    static func line(_ text: String = "") throws(ToolError) { try write(text + "\n") }

    static func error(_ text: String) { errorRaw(text.hasSuffix("\n") ? text : text + "\n") }

    /// A note for the user that is not the report (stderr).
    static func note(_ text: String) { error("firn: note: " + text) }

    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        try write(String(decoding: data, as: UTF8.self) + "\n")
    }
}

/// Progress on stderr, one line redrawn in place (carriage return, erase
/// line: `ProgressText`), at most ten times a second, only when enabled.
final class ProgressLine: @unchecked Sendable {
    private let enabled: Bool
    /// The command's start: the rate counts the time before the first
    /// report too (opening, a pin), so the first line already has one.
    private let started = monotonicNanoseconds()
    private var last: UInt64?
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    var handler: ProgressHandler? {
        guard enabled else { return nil }
        return { [self] progress in draw(progress) }
    }

    private func draw(_ p: ToolProgress) {
        let now = monotonicNanoseconds()
        if let last, elapsedSeconds(since: last, until: now) < 0.1 { return }
        last = now
        Console.errorRaw("\r\u{1B}[2K" + ProgressText.line(p, elapsedSeconds: elapsedSeconds(since: started, until: now)))
        drawn = true
    }

    func finish() {
        if drawn { Console.errorRaw("\r\u{1B}[2K") }
        drawn = false
    }
}

extension Console {
    /// Best effort: nowhere is left to report a failed write to stderr.
    static func errorRaw(_ text: String) { _ = SystemCall.writeAll(2, Array(text.utf8)) }
}
