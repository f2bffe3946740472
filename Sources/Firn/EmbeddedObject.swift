import FirnCore

/// An object that lives inside another one (Realm's `EmbeddedObject`): held
/// by one link property (`@Persisted var address: Address?`) or one list
/// element (`List<Address>`) of its owner, and gone with it.
///
/// - Adding the owner adds it; `add` of an embedded object alone throws
///   `.embeddedObject`, and so does linking an embedded object that already
///   has an owner (assign an unmanaged copy instead).
/// - Assigning the property (or replacing, removing the list element)
///   deletes the object it held; deleting the owner deletes its embedded
///   objects, nested ones too.
/// - `objects(Address.self)` stops the program, as in Realm: an embedded
///   type is reached through its owners (`$0.address.city == "Oslo"`).
///
/// Stored as the objects of every type, with generated keys (docs/FORMAT.md
/// §12.7): reading, freezing, `ThreadSafeReference` and queries through
/// the link need nothing new.
open class EmbeddedObject: Object {
    public required init() { super.init() }
}

extension DatabaseCore {
    /// The embedded type a link or list of objects property points to, nil
    /// for any other property.
    func embeddedTarget(_ property: PropertySchema) -> ClassInfo? {
        guard let target = property.objectType else { return nil }
        return infos.values.first { $0.name == target && $0.schema.isEmbedded }
    }

    /// The embedded objects the object `key` of `info` (its stored `record`)
    /// owns through its links and lists, by type: what deleting it deletes.
    func ownedEmbedded(_ info: ClassInfo, key: [UInt8], record: [UInt8]) throws(DatabaseError) -> [(ClassInfo, [[UInt8]])] {
        var owned: [(ClassInfo, [[UInt8]])] = []
        for (index, property) in info.schema.properties.enumerated() {
            guard let target = embeddedTarget(property) else { continue }
            if property.isList {
                let keys = try listStorage(info, key: key, index: index).linkKeys()
                if !keys.isEmpty { owned.append((target, keys)) }
            } else {
                let field = try engine { () throws(FirnError) in
                    try record.withUnsafeBytes { buffer in
                        Result { () throws(FirnError) in try ObjectRecord.value(index, as: property.type, in: buffer) }
                    }.get()
                }
                if case let .link(child)? = field { owned.append((target, [child])) }
            }
        }
        return owned
    }

    /// Deletes embedded objects that lost their owner's reference (a link
    /// reassigned, a list element removed or replaced): with their own
    /// embedded objects, as deleting any object does.
    func deleteEmbedded(_ target: ClassInfo?, _ keys: [[UInt8]]) throws(DatabaseError) {
        guard let target, !keys.isEmpty else { return }
        try deleteKeys(target, keys)
    }
}

extension ListStorage {
    /// The object keys of a list of objects' elements, in position order.
    func linkKeys() throws(DatabaseError) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        let count = try count()
        for position in 0..<count {
            if case let .link(key)?? = try element(at: position) { keys.append(key) }
        }
        return keys
    }

    /// The element at `position` of a list of embedded objects, with its
    /// type: what removing or replacing it deletes. Nil for other lists.
    func embeddedElement(at position: Int) throws(DatabaseError) -> (target: ClassInfo, key: [UInt8])? {
        guard let target = embeddedTarget(), case let .link(key)?? = try element(at: position) else { return nil }
        return (target, key)
    }

    /// The element type when it is embedded (its removed elements are
    /// deleted), nil otherwise; only a live instance's list asks.
    func embeddedTarget() -> ClassInfo? {
        (source as? DatabaseCore)?.embeddedTarget(property)
    }
}
