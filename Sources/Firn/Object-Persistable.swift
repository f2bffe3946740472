import FirnCore

/// Objects as property values: `@Persisted var owner: Person?` is a link
/// (the field stores the target's object key, docs/FORMAT.md §12.2) and
/// `List<Dog>` holds links. Only the optional form is a valid property
/// (a link reads nil once its target is deleted); the schema check refuses
/// `@Persisted var owner: Person`.
extension Object: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.object, objectType: String(describing: self)) }

    public static var _persistedDefault: Self { self.init() }

    /// A link needs a key: an unmanaged object has none until it is added
    /// (`_stored` adds it), so its field form is the key it has, if any.
    public var _persistedField: PersistedField { PersistedField(managed.map { .link($0.key) }) }

    /// A link cannot be decoded without a source to find its target in.
    public static func _persisted(from field: PersistedField) -> Self? { nil }

    public static func _readOptional(_ access: _ManagedAccess) -> Self? {
        access.managed.linked(access.index, as: self)
    }

    public static func _writeOptional(_ value: Object?, _ access: _ManagedAccess) {
        access.managed.writeLink(access.index, value)
    }

    public static func _recordingInstance(from object: Object) -> Self? {
        guard let recorder = object.recorder else { return nil }
        let target = self.init()
        target.recorder = recorder
        return target
    }

    public func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        PersistedField(.link(try context.core.linkKey(to: self, context)))
    }

    public static func _resolved(_ field: PersistedField, _ source: _SourceRef) -> Self? {
        guard case let .link(key)? = field.value else { return nil }
        do {
            return try source.source.resolve(self, key: key)
        } catch {
            fatalError("Firn: resolving a link to \(self): \(error)")
        }
    }
}
