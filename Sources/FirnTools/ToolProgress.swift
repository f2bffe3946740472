/// Progress of a long operation, reported to an optional callback (the CLI
/// draws it on stderr when stderr is a terminal).
public struct ToolProgress: Sendable {
    /// What is being done: "writing image", "compressing", "verifying"…
    public var phase: String
    public var done: UInt64
    /// Nil when the total is unknown.
    public var total: UInt64?
    /// "pages", "bytes", "entries".
    public var unit: String

    public init(phase: String, done: UInt64, total: UInt64?, unit: String) {
        self.phase = phase
        self.done = done
        self.total = total
        self.unit = unit
    }
}

public typealias ProgressHandler = (ToolProgress) -> Void
