/// What `add` does when an object with the same primary key exists.
public enum UpdatePolicy: Sendable {
    /// Throw `DatabaseError.duplicatePrimaryKey`.
    case error
    /// Replace the stored object's properties with the new object's.
    case modified
    /// Same as `modified` (kept for the documents' spelling).
    case all
}
