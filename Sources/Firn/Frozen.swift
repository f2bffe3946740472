import FirnCore

/// A frozen value in a `Sendable` box, so it can cross actors and tasks
/// without `@unchecked` at the call site. It can only be made from a
/// frozen value (the initializers freeze), which is immutable and readable
/// from any thread; that is what makes the box's `Sendable` sound.
///
/// ```swift
/// let snapshot = try Frozen(rex)                  // on the instance's actor
/// await vet.examine(snapshot)                     // another actor
/// // there: snapshot.value.name, or try snapshot.thaw() for its own live object
/// ```
public struct Frozen<Value>: @unchecked Sendable {
    /// The frozen value.
    public let value: Value

    private init(frozen value: Value) { self.value = value }
}

extension Frozen where Value: Object {
    /// `object` frozen at the version its instance reads (an already
    /// frozen object as it is).
    public init(_ object: Value) throws(DatabaseError) { self.init(frozen: try object.freeze()) }

    /// The live object in the caller's instance (its actor's, its queue's
    /// or its thread's), or nil when it was deleted since.
    public func thaw() throws(DatabaseError) -> Value? { try value.thaw() }
}

extension Frozen {
    /// `results` frozen at the version their instance reads.
    public init<Element: Object>(_ results: Results<Element>) throws(DatabaseError) where Value == Results<Element> {
        self.init(frozen: try results.freeze())
    }

    /// `list` frozen at the version its instance reads.
    public init<Element: PersistableValue>(_ list: List<Element>) throws(DatabaseError) where Value == List<Element> {
        self.init(frozen: try list.freeze())
    }
}
