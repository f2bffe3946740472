import FirnCore

/// An ordered list property: `@Persisted var dogs = List<Dog>()` (objects)
/// or `@Persisted var tags = List<String>()` (the scalar types and their
/// optionals).
///
/// An unmanaged list holds its elements itself; adding its object stores
/// them, and from then on this same instance is a view of the stored list.
/// A managed list reads lazily: `count` and `list[i]` each cost one tree
/// descent, iterating walks a cursor. A live list follows its database
/// instance (and its thread); a frozen one reads one version from any
/// thread.
///
/// Changing a managed list needs a write transaction: the mutating methods
/// throw `.notInWriteTransaction` outside one, `.frozen` on a frozen list,
/// `.listIndexOutOfRange` for a bad position. Appending a frozen object
/// throws `.frozen` and says to thaw it; appending an unmanaged object adds
/// it (with `add`'s default policy: an existing primary key throws).
public final class List<Element: PersistableValue>: RandomAccessCollection, @unchecked Sendable {
    typealias Storage = ViewStorage<[Element]>

    // Only an unmanaged list changes its storage (to managed, once, when
    // its object is added); a managed list's storage is immutable, which is
    // what makes a frozen list safe to share.
    var storage: Storage

    public init() { storage = .unmanaged([]) }

    init(_ managed: ListStorage) { storage = .managed(managed) }

    /// True when this list reads a fixed version (safe from any thread).
    public var isFrozen: Bool { storage.isFrozen }

    /// True for a list of a deleted object.
    public var isInvalidated: Bool { storage.isInvalidated }

    // MARK: reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public var count: Int {
        switch storage {
        case let .unmanaged(elements): return elements.count
        case let .managed(list): return list.viewCount
        }
    }

    /// The element at `position`; out of range stops the program, as for an array.
    public subscript(position: Int) -> Element {
        switch storage {
        case let .unmanaged(elements): return elements[position]
        case let .managed(list):
            list.source.checkAccess()
            let stored: FieldValue??
            do { stored = try list.element(at: position) } catch { fatalError("Firn: \(list.name)[\(position)]: \(error)") }
            guard let stored else { fatalError("Firn: \(list.name): index \(position) is out of range of a list of \(count)") }
            return Self.element(stored, list)
        }
    }

    /// A stored element as `Element` (an object element as an object of the list's source).
    static func element(_ stored: FieldValue?, _ list: ListStorage) -> Element {
        guard let element = Element._resolved(PersistedField(stored), _SourceRef(source: list.source)) else {
            fatalError("Firn: \(list.name): an element holds \(stored.map { "\($0)" } ?? "nil"), not a \(Element.self)")
        }
        return element
    }

    public func makeIterator() -> ListIterator<Element> { ListIterator(self) }

    // MARK: changing

    public func append(_ element: Element) throws(DatabaseError) { try insert(contentsOf: [element], at: nil) }

    public func append<S: Sequence>(contentsOf elements: S) throws(DatabaseError) where S.Element == Element {
        try insert(contentsOf: Array(elements), at: nil)
    }

    public func insert(_ element: Element, at position: Int) throws(DatabaseError) {
        try insert(contentsOf: [element], at: position)
    }

    /// Inserts at `position`, or appends when it is nil.
    func insert(contentsOf elements: [Element], at position: Int?, ownerStored: Bool = true) throws(DatabaseError) {
        switch storage {
        case var .unmanaged(array):
            let at = position ?? array.count
            guard at >= 0, at <= array.count else { throw outOfRange(at, array.count) }
            array.insert(contentsOf: elements, at: at)
            storage = .unmanaged(array)
        case let .managed(list):
            let operation = position == nil ? "append to" : "insert into"
            let (core, tree) = try list.writer(operation, ownerStored: ownerStored)
            let context = _StoreContext(core: core, update: .error, operation: "\(operation == "append to" ? "append it to" : "insert it into") \(list.name)",
                                        owner: nil, ownerKey: [], index: list.index)
            var values: [FieldValue?] = []
            for element in elements { values.append(try element._stored(context).value) }
            let at: Int
            if let position { at = position } else { at = try list.count() }
            try list.insert(values, at: at, core, tree)
            core.changed()
        }
    }

    public func remove(at position: Int) throws(DatabaseError) {
        switch storage {
        case var .unmanaged(array):
            guard array.indices.contains(position) else { throw outOfRange(position, array.count) }
            array.remove(at: position)
            storage = .unmanaged(array)
        case let .managed(list):
            let (core, tree) = try list.writer("remove from")
            let removed = try list.embeddedElement(at: position)
            try list.remove(at: position, tree)
            try core.deleteEmbedded(removed?.target, removed.map { [$0.key] } ?? [])
            core.changed()
        }
    }

    public func removeLast() throws(DatabaseError) { try remove(at: count - 1) }

    public func removeAll() throws(DatabaseError) {
        switch storage {
        case .unmanaged: storage = .unmanaged([])
        case let .managed(list):
            let (core, _) = try list.writer("remove all of")
            let embedded = list.embeddedTarget()
            let removed = embedded == nil ? [] : try list.linkKeys()
            try list.removeAll(core)
            try core.deleteEmbedded(embedded, removed)
            core.changed()
        }
    }

    /// Moves the element at `from` to `to` (the positions of the list before the move).
    public func move(from: Int, to: Int) throws(DatabaseError) {
        switch storage {
        case var .unmanaged(array):
            for position in [from, to] where !array.indices.contains(position) { throw outOfRange(position, array.count) }
            array.insert(array.remove(at: from), at: to)
            storage = .unmanaged(array)
        case let .managed(list):
            let (core, tree) = try list.writer("move within")
            try list.move(from: from, to: to, core, tree)
            core.changed()
        }
    }

    public func replace(at position: Int, with element: Element) throws(DatabaseError) {
        switch storage {
        case var .unmanaged(array):
            guard array.indices.contains(position) else { throw outOfRange(position, array.count) }
            array[position] = element
            storage = .unmanaged(array)
        case let .managed(list):
            let (core, tree) = try list.writer("replace in")
            let context = _StoreContext(core: core, update: .error, operation: "store it in \(list.name)",
                                        owner: nil, ownerKey: [], index: list.index)
            let removed = try list.embeddedElement(at: position)
            try list.replace(at: position, with: try element._stored(context).value, tree)
            try core.deleteEmbedded(removed?.target, removed.map { [$0.key] } ?? [])
            core.changed()
        }
    }

    private func outOfRange(_ position: Int, _ count: Int) -> DatabaseError {
        .listIndexOutOfRange(type: "List<\(Element.self)>", property: "(unmanaged)", index: position, count: count)
    }

    // MARK: frozen values

    /// This list at the version its instance reads now, readable from any
    /// thread; it shares the version's one `frozen` pin.
    public func freeze() throws(DatabaseError) -> List<Element> {
        guard case let .managed(list) = storage else {
            throw DatabaseError.unmanagedObject(type: "List<\(Element.self)>", operation: "freeze")
        }
        return try list.frozenCopy().map(List.init) ?? self
    }

    /// The live list in the caller's instance (its actor's, its queue's or
    /// its thread's), or nil when its object was deleted since.
    public func thaw() throws(DatabaseError) -> List<Element>? {
        guard case let .managed(list) = storage else {
            throw DatabaseError.unmanagedObject(type: "List<\(Element.self)>", operation: "thaw")
        }
        guard let live = try list.liveCopy() else { return self }
        return live.map(List.init)
    }
}

/// Walks a list in position order with one cursor. If a live list's
/// instance moves to another generation meanwhile (a refresh, a change in
/// the write), it seeks back to the next position.
public struct ListIterator<Element: PersistableValue>: IteratorProtocol {
    private let list: List<Element>
    private var position = 0
    private var cursor: Cursor?
    private var generation: UInt64 = 0

    init(_ list: List<Element>) { self.list = list }

    public mutating func next() -> Element? {
        switch list.storage {
        case let .unmanaged(elements):
            guard position < elements.count else { return nil }
            defer { position += 1 }
            return elements[position]
        case let .managed(storage):
            storage.source.checkAccess()
            do {
                let type = storage.property.type
                if cursor == nil || generation != storage.source.generation {
                    guard let fresh = try storage.source.cursor(in: storage.treeName) else { return nil }
                    let start = ListKey.key(prefix: storage.prefix, position)
                    try engine { () throws(FirnError) in try fresh.seek(start) }
                    cursor = fresh
                    generation = storage.source.generation
                } else if let cursor {
                    try engine { () throws(FirnError) in try cursor.next() }
                }
                guard let cursor else { return nil }
                let (position, prefix) = (position, storage.prefix)
                let stored = try engine { () throws(FirnError) -> FieldValue?? in
                    guard try cursor.withKey({ ListKey.position($0, prefix: prefix) == position }) == true,
                          let bytes = try cursor.value else { return nil }
                    return .some(try bytes.withUnsafeBytes { buffer in
                        Result { () throws(FirnError) in try ListElement.decode(buffer, as: type) }
                    }.get())
                }
                guard let stored else { return nil }
                self.position += 1
                return List.element(stored, storage)
            } catch {
                fatalError("Firn: iterating \(storage.name): \(error)")
            }
        }
    }
}
