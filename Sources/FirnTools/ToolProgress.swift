/// Progress of a long operation, reported to an optional callback (the CLI
/// draws it on stderr when stderr is a terminal).
package struct ToolProgress: Sendable {
    /// What is being done: "writing image", "compressing", "verifying"…
    package var phase: String
    package var done: UInt64
    /// Nil when the total is unknown.
    package var total: UInt64?
    /// "pages", "bytes", "entries".
    package var unit: String

    package init(phase: String, done: UInt64, total: UInt64?, unit: String) {
        self.phase = phase
        self.done = done
        self.total = total
        self.unit = unit
    }
}

package typealias ProgressHandler = (ToolProgress) -> Void
