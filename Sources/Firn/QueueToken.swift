/// Marks one bound queue; its identity is the queue's identity.
final class QueueToken: Sendable, CustomStringConvertible {
    let label: String
    init(label: String) { self.label = label }
    var description: String { "queue \"\(label)\"" }
}
