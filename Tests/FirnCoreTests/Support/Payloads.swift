@testable import FirnCore

/// Frame payloads for the commit log's tests, encoded from logical operations.
enum Payloads {
    static func encode(_ operations: [LogOperation]) -> [UInt8] {
        var builder = LogPayload.Builder()
        for operation in operations { builder.append(operation) }
        return builder.bytes
    }

    /// One put of a two-byte value into tree "t".
    static let sample = encode([.put(tree: "t", key: [1], value: [2, 3])])
}
