import Testing
@testable import FirnCore

extension Store {
    /// Commits `key` → `value` into tree "t" (made when missing), in a
    /// transaction of its own.
    func put(_ key: String, _ value: String = "v") throws {
        try write { txn in _ = try #require(try txn.tree("t")).put(Array(key.utf8), Array(value.utf8)) }
    }
}
