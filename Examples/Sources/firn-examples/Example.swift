import Firn
import Foundation

/// One example of the documents: a name, and a body that throws when what
/// the documents say does not happen.
struct Example: Sendable {
    let name: String
    let run: @Sendable (Configuration) throws -> Void
}

/// What an example expected and did not see.
struct Unexpected: Error, CustomStringConvertible {
    let description: String
}

func check(_ condition: Bool, _ what: @autoclosure () -> String, line: Int = #line) throws {
    if !condition { throw Unexpected(description: "line \(line): \(what())") }
}

/// A value handed back from another thread (the examples wait for it).
final class Handoff<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
