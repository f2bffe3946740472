/// What an example expected and did not see.
public struct Unexpected: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Throws `Unexpected`, naming the line, when `condition` is false.
public func check(_ condition: Bool, _ what: @autoclosure () -> String, line: Int = #line) throws {
    if !condition { throw Unexpected(description: "line \(line): \(what())") }
}
