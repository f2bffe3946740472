/// The base class of stored objects. Subclasses declare `@Persisted`
/// properties and keep the required `init()` (objects read from a database
/// are made with it, then read their record lazily).
///
/// An unmanaged object holds its values itself. Once added (or read from a
/// database) it is a view of its record: a live object reads the version
/// its database instance is at and may only be used on that instance's
/// thread; a frozen object reads one version forever, from any thread.
/// Not Sendable: a live object belongs to its instance's thread, and
/// strict concurrency refuses to send it elsewhere at compile time (what
/// slips through unchecked code is stopped at run time by the thread check).
open class Object {
    /// Nil for unmanaged objects.
    var managed: ManagedObject?
    /// Set only on an instance made to learn which property a key path names.
    var recorder: PropertyRecorder?

    public required init() {}

    /// The access to the managed property whose wrapper lies at `offset`
    /// in this object, nil for an unmanaged object (`Persisted`'s accessors).
    @usableFromInline
    final func _managedAccess(wrapperOffset offset: Int) -> _ManagedAccess? {
        guard let managed else { return nil }
        return _ManagedAccess(managed: managed, index: managed.propertyIndex(ofWrapperAt: offset))
    }

    /// An unmanaged property was read: an instance made to learn which
    /// property a key path names notes it (`PropertyRecorder`).
    @usableFromInline
    final func _noteUnmanagedRead(wrapperOffset offset: Int) {
        if let recorder { recorder.reads.append((ObjectIdentifier(self), type(of: self), offset)) }
    }

    /// True on an instance made to learn which properties a key path reads:
    /// a link read there gives a recording instance of its target, so a key
    /// path through it (`\Dog.owner?.name`) goes on being recorded.
    @usableFromInline
    final var _isRecordingKeyPath: Bool { recorder != nil }

    /// The type and its stored properties, as Realm prints an object
    /// (`ObjectDescription`): links and list elements summarized by their
    /// primary key. A deleted or invalidated object, or a live one described
    /// off its binding, says so instead of stopping the program.
    open var description: String { ObjectDescription.text(of: self) }

    /// True when this object reads a fixed version (safe from any thread).
    public var isFrozen: Bool { managed?.source.isFrozen ?? false }

    /// True once the object was deleted (or its write was cancelled).
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// A frozen view of this object at the version its database instance
    /// reads now. All frozen values of one version share one pin.
    public func freeze() throws(DatabaseError) -> Self {
        let typeName = String(describing: type(of: self))
        guard let managed else { throw DatabaseError.unmanagedObject(type: typeName, operation: "freeze") }
        if managed.source.isFrozen { return self }
        guard let core = managed.source as? DatabaseCore else { return self }
        // As Realm: a deleted object has nothing to freeze (its frozen copy
        // would stop the program on its first read).
        guard !managed.isInvalidated else { throw DatabaseError.invalidatedObject(type: typeName) }
        let frozen = try core.frozenVersion(operation: "freeze \(typeName)")
        let copy = Self()
        copy.managed = ManagedObject(source: frozen, info: managed.info, key: managed.key)
        return copy
    }

    /// The live counterpart of a frozen object in the caller's instance of
    /// its database (its queue's, or its thread's), or nil when it was
    /// deleted since. An instance reading an older version than the frozen
    /// one is refreshed first.
    public func thaw() throws(DatabaseError) -> Self? {
        guard let managed else {
            throw DatabaseError.unmanagedObject(type: String(describing: type(of: self)), operation: "thaw")
        }
        guard let frozen = managed.source as? FrozenVersion else { return self }
        let core = try InstanceCache.callersInstance(frozen.configuration)
        try core.catchUp(to: frozen.version)
        return try core.object(Self.self, key: managed.key)
    }
}
