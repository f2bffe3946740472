import FirnCore

/// What `@ThreadSafe` keeps of an object: where to find it again.
struct ObjectIdentity: Sendable {
    let configuration: Configuration
    let key: [UInt8]
    /// The version the object was seen at (or that the write it was seen
    /// in commits): a reader's instance at an older one refreshes first.
    let version: UInt64

    init(_ object: Object) {
        guard let managed = object.managed else {
            fatalError("Firn: \(DatabaseError.unmanagedObject(type: String(describing: type(of: object)), operation: "wrap it in @ThreadSafe")); add it to a database first")
        }
        key = managed.key
        switch managed.source {
        case let core as DatabaseCore:
            core.checkAccess()
            configuration = core.configuration
            version = (try? core.referenceVersion) ?? 0
        case let frozen as FrozenVersion:
            configuration = frozen.configuration
            version = frozen.version
        default:
            fatalError("Firn: @ThreadSafe \(type(of: object)): the object belongs to no database")
        }
    }
}
