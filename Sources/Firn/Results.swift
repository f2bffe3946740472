import FirnCore
import Foundation

/// The objects of one type, in key order, read lazily: `count` is the
/// tree's count, iteration walks a cursor and makes each object as a view
/// of its key (its properties are read only when used). Live results read
/// the version their instance reads at each use; frozen results one
/// version, from any thread (hence Sendable; live ones check their thread
/// on every use).
public struct Results<Element: Object>: Sequence, @unchecked Sendable {
    let source: any ObjectSource
    private let position = PositionCache()

    init(source: any ObjectSource) { self.source = source }

    private var info: ClassInfo {
        do { return try source.info(Element.self) } catch { fatalError("Firn: \(error)") }
    }

    public var isFrozen: Bool { source.isFrozen }

    public var count: Int {
        source.checkAccess()
        do { return try source.count(info) } catch { fatalError("Firn: \(error)") }
    }

    public var isEmpty: Bool { count == 0 }

    /// The object at `index` in key order. Walking forwards costs one
    /// cursor step per index; other access walks from the first object.
    public subscript(index: Int) -> Element {
        source.checkAccess()
        guard index >= 0, let object = position.object(at: index, of: self) else {
            fatalError("Firn: index \(index) out of range of \(count) \(Element.self) objects")
        }
        return object
    }

    public var first: Element? {
        var iterator = makeIterator()
        return iterator.next()
    }

    public func makeIterator() -> ResultsIterator<Element> {
        source.checkAccess()
        return ResultsIterator(source: source, info: info)
    }

    /// These results at the version their instance reads now, readable
    /// from any thread; they share the version's one `frozen` pin.
    public func freeze() throws(DatabaseError) -> Results<Element> {
        guard let core = source as? DatabaseCore else { return self }
        return Results(source: try core.frozenVersion(operation: "freeze Results<\(Element.self)>"))
    }

    /// The live results of the caller's instance (its queue's, or its
    /// thread's), refreshed first when it reads an older version than these.
    public func thaw() throws(DatabaseError) -> Results<Element> {
        guard let frozen = source as? FrozenVersion else { return self }
        let core = try InstanceCache.callersInstance(frozen.configuration)
        try core.catchUp(to: frozen.version)
        return Results(source: core)
    }

    /// The iterator behind sequential subscripting; locked because frozen
    /// results may be subscripted from several threads at once.
    final class PositionCache {
        private let lock = NSLock()
        private var iterator: ResultsIterator<Element>?
        private var index = -1
        private var current: Element?

        func object(at wanted: Int, of results: Results<Element>) -> Element? {
            lock.lock()
            defer { lock.unlock() }
            if iterator == nil || wanted < index || (wanted == index && current == nil) {
                iterator = results.makeIterator()
                index = -1
                current = nil
            }
            while index < wanted {
                current = iterator?.next()
                index += 1
                if current == nil { break }
            }
            return current
        }
    }
}

/// Walks a type's tree in key order. If the source moved to another
/// generation (refresh, a change in the write transaction) it re-seeks
/// after the last key it returned, so iterating while deleting is safe.
public struct ResultsIterator<Element: Object>: IteratorProtocol {
    let source: any ObjectSource
    let info: ClassInfo
    private var cursor: Cursor?
    private var generation: UInt64 = 0
    private var lastKey: [UInt8]?
    private var done = false

    init(source: any ObjectSource, info: ClassInfo) {
        self.source = source
        self.info = info
    }

    public mutating func next() -> Element? {
        guard !done else { return nil }
        source.checkAccess()
        do {
            if let cursor, generation == source.generation {
                try engine { () throws(FirnError) in try cursor.next() }
            } else {
                guard let fresh = try source.cursor(info) else {
                    done = true
                    return nil
                }
                cursor = fresh
                generation = source.generation
                try engine { () throws(FirnError) in
                    if let lastKey {
                        try fresh.seek(lastKey)
                        if fresh.isValid, try fresh.withKey({ $0.elementsEqual(lastKey) }) == true { try fresh.next() }
                    } else {
                        try fresh.first()
                    }
                }
            }
            guard let cursor, cursor.isValid, let key = try engine({ () throws(FirnError) in try cursor.key }) else {
                done = true
                return nil
            }
            lastKey = key
            let object = Element()
            object.managed = ManagedObject(source: source, info: info, key: key)
            return object
        } catch {
            fatalError("Firn: iterating \(info.name): \(error)")
        }
    }
}
