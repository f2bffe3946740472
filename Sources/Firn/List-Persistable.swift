import FirnCore

/// Lists as property values. A list has no field in its object's record:
/// its elements are entries of the property's list tree (docs/FORMAT.md
/// §12.4), so appending never rewrites the record or the other elements.
extension List: PersistableValue {
    public static var _persistedType: PersistedType {
        let element = Element._persistedType
        let invalid = element.isList ? "is a list of lists (a List holds objects or scalars)" : element.invalid
        return PersistedType(element.type, optional: element.isOptional, list: true, objectType: element.objectType, invalid: invalid)
    }

    public static var _persistedDefault: List<Element> { List() }

    public var _persistedField: PersistedField { PersistedField(nil) }

    public static func _persisted(from field: PersistedField) -> List<Element>? { nil }

    /// A managed object's list: a view of its entries in the object's source.
    public static func _read(_ access: _ManagedAccess) -> List<Element> {
        let managed = access.managed
        managed.source.checkAccess()
        return List(ListStorage(source: managed.source, owner: managed.info, ownerKey: managed.key, index: access.index))
    }

    /// Assigning a list to a managed object's property replaces its
    /// elements. A setter cannot throw: outside a write or on a frozen
    /// object it stops the program (as every setter does); an element that
    /// cannot be stored fails the commit.
    public static func _write(_ value: List<Element>, _ access: _ManagedAccess) {
        let (target, core) = ListStorage.assigned(access)
        let elements = Array(value)
        do {
            // A list of embedded objects owns its elements: replaced, they are deleted.
            let embedded = target.embeddedTarget()
            let removed = embedded == nil ? [] : try target.linkKeys()
            try target.removeAll(core)
            try core.deleteEmbedded(embedded, removed)
            try List(target).append(contentsOf: elements)
        } catch {
            core.defer(error)
        }
    }

    /// Adding this list's object: its elements (read first, in case they are
    /// the elements being replaced) become the owner's entries, and this
    /// instance becomes a view of them.
    public func _stored(_ context: _StoreContext) throws(DatabaseError) -> PersistedField {
        guard let owner = context.owner else {
            throw DatabaseError.invalidSchema(type: "List<\(Element.self)>", detail: "a list cannot be an element")
        }
        let elements = Array(self)
        let target = ListStorage(source: context.core, owner: owner, ownerKey: context.ownerKey, index: context.index)
        if context.replacing { try target.removeAll(context.core) }
        try List(target).insert(contentsOf: elements, at: nil, ownerStored: false)
        if case .unmanaged = storage { storage = .managed(target) }
        return PersistedField(nil)
    }
}

extension DatabaseCore {
    /// List property `index` of the object `key` of `info`, in this instance.
    func listStorage(_ info: ClassInfo, key: [UInt8], index: Int) -> ListStorage {
        ListStorage(source: self, owner: info, ownerKey: key, index: index)
    }
}
