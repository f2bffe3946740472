/// Values by tree name, for the few trees one transaction or one frame
/// touches: a linear search over the names, without hashing and without a
/// dictionary's storage per table (a grouped commit built six such tables
/// and hashed names about 24 times; together a tenth of its instructions).
/// A name of up to 15 bytes is stored inline in the `String` and compares
/// as two words. Past `indexedAbove` names a hash index is kept as well, so
/// a transaction touching thousands of trees stays linear in them.
struct NameTable<Value>: Sequence {
    typealias Element = (key: String, value: Value)

    private var items: [Element] = []
    /// Position of each name in `items`, kept only past `indexedAbove` names.
    private var index: [String: Int]? = nil

    static var indexedAbove: Int { 16 }

    init() {}

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var keys: [String] { items.map(\.key) }

    func makeIterator() -> IndexingIterator<[Element]> { items.makeIterator() }

    /// Where `name` is in `items`.
    @inline(__always)
    private func position(of name: String) -> Int? {
        if let index { return index[name] }
        return items.firstIndex { $0.key == name }
    }

    @inline(__always)
    func contains(_ name: String) -> Bool { position(of: name) != nil }

    /// What `body` reads of `name`'s value, in place: no copy of the value
    /// (and no retain of the storage it holds) as the subscript makes.
    /// Inlined, so it is specialized where it is called: unspecialized,
    /// the element was copied through value witnesses on every call.
    @inline(__always)
    func read<R>(_ name: String, _ body: (borrowing Value) -> R) -> R? {
        guard let at = position(of: name) else { return nil }
        return items.withUnsafeBufferPointer { body($0[at].value) }
    }

    subscript(name: String) -> Value? {
        get { position(of: name).map { items[$0].value } }
        set {
            if let at = position(of: name) {
                if let newValue {
                    items[at].value = newValue
                } else {
                    items.remove(at: at)
                    rebuildIndex()
                }
            } else if let newValue {
                items.append((name, newValue))
                if index != nil {
                    index?[name] = items.count - 1
                } else if items.count > Self.indexedAbove {
                    rebuildIndex()
                }
            }
        }
    }

    /// Changes the value of `name` in place (no copy of what it holds);
    /// false when the name is not there.
    @discardableResult @inline(__always)
    mutating func modify(_ name: String, _ body: (inout Value) -> Void) -> Bool {
        guard let at = position(of: name) else { return false }
        body(&items[at].value)
        return true
    }

    private mutating func rebuildIndex() {
        guard items.count > Self.indexedAbove else {
            index = nil
            return
        }
        var built: [String: Int] = [:]
        built.reserveCapacity(items.count)
        for (at, item) in items.enumerated() { built[item.key] = at }
        index = built
    }
}

extension NameTable: Sendable where Value: Sendable {}

extension NameTable: Equatable where Value: Equatable {
    /// The same names with equal values, in any order.
    static func == (lhs: NameTable, rhs: NameTable) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.key] == $0.value }
    }
}
