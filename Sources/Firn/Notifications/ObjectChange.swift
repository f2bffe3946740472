import FirnCore
import Foundation

/// One changed property of an observed object.
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// The value before and after, as the property's Swift type (`Int`,
    /// `String?`, `Date`…; nil for null). A link gives the target's stored
    /// key bytes (`[UInt8]`), not an object. Both nil for a list property
    /// (its elements changed: read the list for the new ones).
    public let oldValue: Any?
    public let newValue: Any?
}

/// What `Object.observe` reports.
public enum ObjectChange {
    /// Properties of the object changed; it is the live object, reading
    /// the new version.
    case change(Object, [PropertyChange])
    /// The object was deleted; no callback follows.
    case deleted
    /// The change could not be read; no callback follows.
    case error(DatabaseError)
}

extension Object {
    /// Calls `block` after each refresh point (docs/SDK.md "Notifications")
    /// at which this object's stored properties changed (`.change`, with
    /// the properties and their old and new values; a list property whose
    /// elements changed is named, with no values), or when it was deleted.
    /// Frozen objects throw `.frozen`, unmanaged ones `.unmanagedObject`,
    /// deleted ones `.invalidatedObject`.
    public func observe(_ block: @escaping @Sendable (ObjectChange) -> Void) throws(DatabaseError) -> NotificationToken {
        let typeName = String(describing: type(of: self))
        guard let managed else { throw DatabaseError.unmanagedObject(type: typeName, operation: "observe") }
        guard let core = managed.source as? DatabaseCore else { throw DatabaseError.frozen(type: typeName, operation: "observe") }
        core.checkAccess()
        guard !managed.isInvalidated else { throw DatabaseError.invalidatedObject(type: typeName) }
        return try core.observe(ObjectObservation(self, managed, block), beginNow: true)
    }

    /// `observe` for `changes`: each `.change` carries the object frozen at
    /// the version it describes, and `onClose` is called when the instance
    /// closes (a sequence must then end rather than wait forever).
    func observeFrozen(onClose: @escaping @Sendable () -> Void,
                       _ block: @escaping @Sendable (ObjectChange) -> Void) throws(DatabaseError) -> NotificationToken {
        let typeName = String(describing: type(of: self))
        guard let managed else { throw DatabaseError.unmanagedObject(type: typeName, operation: "observe") }
        guard let core = managed.source as? DatabaseCore else { throw DatabaseError.frozen(type: typeName, operation: "observe") }
        core.checkAccess()
        guard !managed.isInvalidated else { throw DatabaseError.invalidatedObject(type: typeName) }
        let observation = ObjectObservation(self, managed, deliversFrozen: true, block)
        observation.onClose = onClose
        return try core.observe(observation, beginNow: true)
    }
}

/// One object's record compared between the two versions of each step: two
/// lookups, only for a step that changed the type's tree.
final class ObjectObservation: Observation, FailableObservation, @unchecked Sendable {
    private let object: Object
    private let info: ClassInfo
    private let key: [UInt8]
    private let block: @Sendable (ObjectChange) -> Void
    /// Each `.change` gets the object frozen at the step's version
    /// (`Object.changes`: the consumer reads it later, maybe elsewhere).
    private let deliversFrozen: Bool

    init(_ object: Object, _ managed: ManagedObject, deliversFrozen: Bool = false,
         _ block: @escaping @Sendable (ObjectChange) -> Void) {
        self.object = object
        info = managed.info
        key = managed.key
        self.deliversFrozen = deliversFrozen
        self.block = block
    }

    func fail(_ error: DatabaseError) {
        stop()
        block(.error(error))
    }

    override func update(_ changes: VersionChanges, core: DatabaseCore, notify: Bool) {
        let outcome: ObjectChange?
        do {
            outcome = try compare(changes, core)
        } catch {
            return fail(.engine(error))
        }
        guard let outcome else { return }
        if case .deleted = outcome { stop() }
        guard notify else { return }
        guard deliversFrozen, case let .change(_, properties) = outcome else { return block(outcome) }
        let frozen: FrozenVersion
        do {
            frozen = try core.frozenVersion(at: changes.new.version)
        } catch {
            return fail(error)
        }
        let copy = type(of: object).init()
        copy.managed = ManagedObject(source: frozen, info: info, key: key)
        block(.change(copy, properties))
    }

    /// `.deleted`, `.change` with the properties whose values differ, or
    /// nil when nothing of the object changed.
    private func compare(_ changes: VersionChanges, _ core: DatabaseCore) throws(FirnError) -> ObjectChange? {
        let tree = info.schema.treeName
        var properties: [PropertyChange] = []
        if try changes.touched(tree) {
            guard let new = try changes.new.tree(tree)?.get(key) else { return .deleted }
            if let old = try changes.old.tree(tree)?.get(key), !old.bytes.elementsEqual(new.bytes) {
                for (index, property) in info.schema.properties.enumerated() where !property.isList {
                    let before = try ObjectRecord.value(index, as: property.type, in: old.bytes)
                    let after = try ObjectRecord.value(index, as: property.type, in: new.bytes)
                    guard before != after else { continue }
                    properties.append(PropertyChange(name: property.name, oldValue: before.map { Self.swiftValue($0, property.type) },
                                                     newValue: after.map { Self.swiftValue($0, property.type) }))
                }
            }
        }
        // A list's elements live in its own tree, one entry each, under the
        // owner's key: the list changed when the step's diff of that tree
        // (computed once per step for every observer) has a key in the
        // owner's run. Like Realm, no old and new values for a list.
        for property in info.schema.properties where property.isList {
            let listTree = info.schema.listTreeName(property)
            guard try changes.touched(listTree), try changes.hasChange(in: listTree, withPrefix: listPrefix) else { continue }
            properties.append(PropertyChange(name: property.name, oldValue: nil, newValue: nil))
        }
        // Changes inside embedded objects (EmbeddedChanges): only when the
        // owner is still there (a deleted owner returned `.deleted` above).
        for name in try changes.embeddedChanges(info, key: key, core: core, skip: Set(properties.map(\.name))) {
            properties.append(PropertyChange(name: name, oldValue: nil, newValue: nil))
        }
        return properties.isEmpty ? nil : .change(object, properties)
    }

    /// The owner part of this object's list keys (`ListKey`).
    private lazy var listPrefix = ListKey.prefix(key)

    /// A stored field as the Swift type its property is declared with.
    static func swiftValue(_ value: FieldValue, _ type: PropertyType) -> Any {
        switch value {
        case let .bool(v): return v
        case let .int(v):
            switch type {
            case .int8: return Int8(truncatingIfNeeded: v)
            case .int16: return Int16(truncatingIfNeeded: v)
            case .int32: return Int32(truncatingIfNeeded: v)
            case .int64: return v
            default: return Int(v)
            }
        case let .double(v): return v
        case let .float(v): return v
        case let .string(v): return v
        case let .data(v): return Data(v)
        case let .date(v): return Date(timeIntervalSinceReferenceDate: v)
        case let .uuid(v):
            guard v.count == 16 else { return v }
            return UUID(uuid: (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]))
        case let .link(v): return v
        case let .decimal(v): return Decimal(v)
        }
    }
}
