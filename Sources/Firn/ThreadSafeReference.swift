import FirnCore

/// Hands one live object, or live results, to another thread, queue or
/// actor: `Sendable`, resolved exactly once with `Database.resolve(_:)` on
/// the receiving side. Until then it pins the version it was made at, as
/// kind `threadSafeReference` labelled with the file and line that made it
/// (what `firn pins` shows); resolving, or dropping every copy, releases it.
///
/// ```swift
/// let ref = try ThreadSafeReference(to: dog)
/// queue.async {
///     guard let db = try? Database(configuration: config, queue: queue),
///           let dog = try? db.resolve(ref) else { return }  // nil: deleted meanwhile
/// }
/// ```
///
/// Copies share one pin and one resolution: the second resolve of any copy
/// throws `.referenceAlreadyResolved`.
public struct ThreadSafeReference<Confined>: Sendable {
    let pin: ReferencePin
    let info: ClassInfo
    /// The object's key; nil for results.
    let key: [UInt8]?
    /// The query of results (nil: every object of the type, in key order).
    let plan: QueryPlan?

    /// The version the reference was made at, or, made in a write
    /// transaction, the version that write commits.
    var version: UInt64 { pin.version }
}

extension ThreadSafeReference where Confined: Object {
    /// A reference to `object`, a managed object (live, or frozen: it then
    /// resolves to the live counterpart). Made on the object's thread.
    public init(to object: Confined, file: StaticString = #fileID, line: UInt = #line) throws(DatabaseError) {
        let typeName = String(describing: type(of: object))
        guard let managed = object.managed else {
            throw DatabaseError.unmanagedObject(type: typeName, operation: "make a ThreadSafeReference to it")
        }
        if object.isInvalidated {
            if managed.session != managed.source.session { throw DatabaseError.invalidatedInstance(type: typeName) }
            throw DatabaseError.invalidatedObject(type: typeName)
        }
        pin = try ReferencePin(source: managed.source, madeAt: ReferencePin.label(file, line))
        info = managed.info
        key = managed.key
        plan = nil
    }
}

extension ThreadSafeReference {
    /// A reference to `results`: resolves to the same results (the same
    /// query and order) in the resolving instance, read live there.
    public init<Element: Object>(to results: Results<Element>, file: StaticString = #fileID, line: UInt = #line)
        throws(DatabaseError) where Confined == Results<Element> {
        results.source.checkAccess()
        pin = try ReferencePin(source: results.source, madeAt: ReferencePin.label(file, line))
        info = try results.source.info(Element.self)
        key = nil
        plan = results.plan
    }
}
