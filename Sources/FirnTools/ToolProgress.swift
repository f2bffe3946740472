/// Progress of a long operation, reported to an optional callback (the CLI
/// draws it on stderr when stderr is a terminal).
package struct ToolProgress: Sendable {
    /// What is being done.
    package enum Phase: String, Sendable {
        case writing, exporting, verifying, decompressing, loading
    }

    /// What `done` and `total` count.
    package enum Unit: String, Sendable {
        case pages, bytes, entries
    }

    package var phase: Phase
    package var done: UInt64
    /// Nil when the total is unknown.
    package var total: UInt64?
    package var unit: Unit

    package init(phase: Phase, done: UInt64, total: UInt64?, unit: Unit) {
        self.phase = phase
        self.done = done
        self.total = total
        self.unit = unit
    }
}

package typealias ProgressHandler = (ToolProgress) -> Void
