import FirnCore

/// A set property: `@Persisted var tags = MutableSet<String>()` (the
/// scalar types and their optionals) or `MutableSet<Dog>` (objects), as in
/// Realm: unique elements, in no particular order.
///
/// Stored as a list whose elements are unique (docs/FORMAT.md §12.4, the set
/// flag of §12.1): everything a list does with its owner — deleted with it,
/// a deleted object leaving it, migrations, frozen copies, notifications,
/// `firn dump --objects` — holds for a set unchanged. Equal means equal
/// stored bytes (−0.0 is stored as 0.0, so the two are one element; NaN
/// equals NaN). `contains`, `insert` and `remove` read the elements in
/// turn: a set costs what a list of its size costs to scan, which suits the
/// tags-and-categories sets apps keep; a keyed layout would be a format change.
///
/// An unmanaged set holds its elements itself; adding its object stores
/// them and this instance becomes a view of them. Changing a managed set
/// needs a write transaction (`.notInWriteTransaction`, `.frozen` otherwise).
public final class MutableSet<Element: PersistableValue>: RandomAccessCollection, @unchecked Sendable {
    /// The elements, as a list of unique values: unmanaged or a view of the list tree.
    let list: List<Element>

    public init() { list = List() }

    init(_ list: List<Element>) { self.list = list }

    public var isFrozen: Bool { list.isFrozen }
    public var isInvalidated: Bool { list.isInvalidated }

    public var startIndex: Int { 0 }
    public var endIndex: Int { list.count }
    public var count: Int { list.count }
    /// The element at `position` (in the set's stored order).
    public subscript(position: Int) -> Element { list[position] }
    public func makeIterator() -> ListIterator<Element> { list.makeIterator() }

    /// Whether an element equal to `element` is in the set. An unmanaged
    /// object is in no managed set; in an unmanaged set it is compared by identity.
    public func contains(_ element: Element) -> Bool {
        do { return try position(of: element) != nil } catch { fatalError("Firn: MutableSet<\(Element.self)>.contains: \(error)") }
    }

    /// Adds `element` unless an equal one is there (an unmanaged object is added to the database first).
    public func insert(_ element: Element) throws(DatabaseError) {
        try insert(contentsOf: [element])
    }

    /// Adds each element not yet in the set.
    public func insert<S: Sequence>(contentsOf elements: S) throws(DatabaseError) where S.Element == Element {
        for element in elements.map(Self.canonical) where try position(of: element) == nil {
            try list.append(element)
        }
    }

    /// Removes the element equal to `element`, if there is one.
    public func remove(_ element: Element) throws(DatabaseError) {
        if let position = try position(of: element) { try list.remove(at: position) }
    }

    public func removeAll() throws(DatabaseError) { try list.removeAll() }

    /// Adds every element of `other` (Realm's `formUnion`).
    public func formUnion<S: Sequence>(_ other: S) throws(DatabaseError) where S.Element == Element {
        try insert(contentsOf: other)
    }

    /// Keeps only the elements also in `other`.
    public func formIntersection<S: Sequence>(_ other: S) throws(DatabaseError) where S.Element == Element {
        let kept = MutableSet()
        try kept.insert(contentsOf: other)
        for element in Array(list).reversed() where !kept.contains(element) { try remove(element) }
    }

    /// Removes every element of `other`.
    public func subtract<S: Sequence>(_ other: S) throws(DatabaseError) where S.Element == Element {
        for element in other { try remove(element) }
    }

    /// Whether the set and `other` have an element in common.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        other.contains { contains($0) }
    }

    /// Whether every element of the set is in `other`.
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        let container = MutableSet()
        try? container.insert(contentsOf: other)
        return allSatisfy { container.contains($0) }
    }

    /// This set at the version its instance reads now, readable from any thread.
    public func freeze() throws(DatabaseError) -> MutableSet<Element> { MutableSet(try list.freeze()) }

    /// The live set in the caller's instance, or nil when its object was deleted since.
    public func thaw() throws(DatabaseError) -> MutableSet<Element>? { try list.thaw().map(MutableSet.init) }

    // MARK: equality

    /// The position of the element equal to `element`, nil when there is none.
    func position(of element: Element) throws(DatabaseError) -> Int? {
        let wanted = Self.storedBytes(element)
        switch list.storage {
        case let .unmanaged(elements):
            if let wanted { return elements.firstIndex { Self.storedBytes($0) == wanted } }
            return elements.firstIndex { ($0 as AnyObject) === (element as AnyObject) }
        case let .managed(storage):
            storage.source.checkAccess()
            guard let wanted else { return nil }   // an unmanaged object: in no managed set
            return try storage.position(of: wanted)
        }
    }

    /// The element as a list entry stores it (FORMAT.md §12.4), after
    /// `canonical`; nil for an object not yet stored (it has no key).
    static func storedBytes(_ element: Element) -> [UInt8]? {
        if let object = element as? Object, object.managed == nil { return nil }
        return ListElement.encode(element._persistedField.value.map(canonical), as: Element._persistedType.type)
    }

    /// −0 as 0 and every NaN as one: values equal in Swift (and NaNs) are one element.
    static func canonical(_ value: FieldValue) -> FieldValue {
        switch value {
        case let .double(v) where v == 0 || v.isNaN: return .double(v.isNaN ? .nan : 0)
        case let .float(v) where v == 0 || v.isNaN: return .float(v.isNaN ? .nan : 0)
        default: return value
        }
    }

    /// `element` as the set stores it (`canonical` on a Double or Float).
    static func canonical(_ element: Element) -> Element {
        if let value = element as? Double, value == 0 || value.isNaN { return (value.isNaN ? Double.nan : 0) as? Element ?? element }
        if let value = element as? Float, value == 0 || value.isNaN { return (value.isNaN ? Float.nan : 0) as? Element ?? element }
        return element
    }
}

extension ListStorage {
    /// The position of the element whose stored bytes are `bytes`: one walk of the list's run.
    func position(of bytes: [UInt8]) throws(DatabaseError) -> Int? {
        guard let cursor = try source.cursor(in: treeName) else { return nil }
        let prefix = self.prefix
        return try engine { () throws(FirnError) -> Int? in
            try cursor.seek(prefix)
            var position = 0
            while cursor.isValid {
                guard try cursor.withKey({ $0.starts(with: prefix) }) == true else { return nil }
                if try cursor.value == bytes { return position }
                position += 1
                try cursor.next()
            }
            return nil
        }
    }
}
