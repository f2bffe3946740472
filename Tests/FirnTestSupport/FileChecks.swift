import FirnCore

extension Verifier {
    /// The Verifier's report on the latest version of the file at `path`
    /// (opened read-only), its commit slots included.
    package static func verifyFile(at path: String) throws -> VerifyReport {
        let store = try Store.open(path, options: .readOnlyExisting)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return verify(snapshot, slots: try store.readSlots())
    }
}
