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
            guard let embedded = target.embeddedTarget() else {
                try target.removeAll(core)
                try List(target).append(contentsOf: elements)
                return
            }
            try Self.assignEmbedded(elements, to: target, embedded, core)
        } catch {
            core.defer(error)
        }
    }

    /// A list of embedded objects owns its elements: those the new value
    /// drops are deleted. One it holds already (`past = past`, or the same
    /// objects reordered) keeps its place in it, as in Realm, and is linked
    /// again by key: it would otherwise be deleted before being appended
    /// (or refused as an object that already has an owner).
    private static func assignEmbedded(_ elements: [Element], to target: ListStorage, _ embedded: ClassInfo,
                                       _ core: DatabaseCore) throws(DatabaseError) {
        let current = try target.linkKeys()
        var held = Set(current)
        var kept: [Int: [UInt8]] = [:]
        for (position, element) in elements.enumerated() {
            // Each held object once: a second occurrence would be a second owner (refused below).
            guard let managed = (element as? Object)?.managed, managed.source === core, managed.info === embedded,
                  held.remove(managed.key) != nil else { continue }
            kept[position] = managed.key
        }
        let (_, tree) = try target.writer("set")
        try target.removeAll(core)
        try core.deleteEmbedded(embedded, current.filter { held.contains($0) })
        let context = _StoreContext(core: core, update: .error, operation: "append it to \(target.name)", owner: nil, ownerKey: [], index: target.index)
        var values: [FieldValue?] = []
        for (position, element) in elements.enumerated() {
            if let key = kept[position] { values.append(.link(key)) } else { values.append(try element._stored(context).value) }
        }
        try target.insert(values, at: 0, core, tree)
        core.changed()
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
