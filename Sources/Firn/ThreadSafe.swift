import FirnCore

/// An object reference any thread can read: it keeps only the object's
/// identity (database, type, key) and holds no pin, so it costs the file
/// nothing however long it lives. Reading it gives the caller's own live
/// object — through the caller's instance of the database (its bound
/// queue's, else its thread's) — or nil once the object is deleted.
///
/// ```swift
/// struct Job: Sendable { @ThreadSafe var dog: Dog? }
/// let job = Job(dog: dog)
/// queue.async { job.dog?.name ... }   // that thread's live Dog
/// ```
///
/// Swift 6 refuses to capture a local `@ThreadSafe var` in a `@Sendable`
/// closure (it checks the wrapped `Dog?`): send the wrapper itself, `$dog`,
/// or keep it in a Sendable struct, as above.
@propertyWrapper
public struct ThreadSafe<T: Object>: Sendable {
    private var identity: ObjectIdentity?

    /// `value` must be managed (live or frozen); an unmanaged object stops
    /// the program: add it to a database first.
    public init(wrappedValue value: T?) {
        identity = value.map(ObjectIdentity.init)
    }

    public var wrappedValue: T? {
        get {
            guard let identity else { return nil }
            do {
                let core = try InstanceCache.callersInstance(identity.configuration)
                try core.catchUp(to: identity.version)
                return try core.object(T.self, key: identity.key)
            } catch {
                fatalError("Firn: @ThreadSafe \(T.self): \(error)")
            }
        }
        set { identity = newValue.map(ObjectIdentity.init) }
    }

    /// The wrapper itself, to send where the wrapped object cannot go.
    public var projectedValue: ThreadSafe<T> { self }
}
