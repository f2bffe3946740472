/// Where a database lives and which object types it stores. The same
/// configuration on the same thread gives the same (cached) instance.
public struct Configuration: Sendable {
    /// The database file (created when missing).
    public var path: String
    /// The object classes stored; every type used must be listed.
    public var objectTypes: [Object.Type]

    public init(path: String, objectTypes: [Object.Type]) {
        self.path = path
        self.objectTypes = objectTypes
    }

    /// What makes two configurations the same instance on one thread.
    var identity: [String] { [path] + objectTypes.map { String(reflecting: $0) } }
}
