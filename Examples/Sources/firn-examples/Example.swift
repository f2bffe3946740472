import ExampleSupport
import Firn

/// One example of the documents: a name, and a body that throws when what
/// the documents say does not happen.
struct Example: Sendable {
    let name: String
    let run: @Sendable (Configuration) throws -> Void
}
