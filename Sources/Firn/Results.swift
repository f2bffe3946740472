import FirnCore
import Foundation

/// The objects of one type, in key order, read lazily: `count` is the
/// tree's count, iteration walks a cursor and makes each object as a view
/// of its key (its properties are read only when used). Live results read
/// the version their instance reads at each use; frozen results one
/// version, from any thread (hence Sendable; live ones check their thread
/// on every use). Results of `where` and `sorted` find their keys on first
/// use and again after each change of version (`QueryPlan`).
public struct Results<Element: Object>: Sequence, @unchecked Sendable {
    let source: any ObjectSource
    let plan: QueryPlan?
    private let position = PositionCache()
    let matches = MatchCache()

    init(source: any ObjectSource, plan: QueryPlan? = nil) {
        self.source = source
        self.plan = plan
    }

    /// The matching keys in order, nil for all objects in key order.
    private var planKeys: [[UInt8]]? { plan.map { matches.keys(source, info, $0) } }

    /// How many keys the plan matches, found and kept for the version.
    var planKeyCount: Int { planKeys?.count ?? 0 }

    private var info: ClassInfo {
        do { return try source.info(Element.self) } catch { fatalError("Firn: \(error)") }
    }

    public var isFrozen: Bool { source.isFrozen }

    public var count: Int {
        source.checkAccess()
        guard let plan else {
            do { return try source.count(info) } catch { fatalError("Firn: \(error)") }
        }
        if let keys = matches.cached(source) { return keys.count }
        // Counted in one pass over the records, keeping no keys — unless a
        // distinct must see the values.
        guard !plan.hasDistinct else { return matches.keys(source, info, plan).count }
        var count = 0
        do {
            let info = info
            let reader = RecordReader(info.schema, condition: plan.condition)
            // The records the leaf loop decides are counted there.
            let decided = try plan.scan(source, info, reader, deciding: reader.integerScan(tallying: true)) { (_) throws(DatabaseError) in
                count += 1
            }
            count += decided?.count ?? 0
        } catch {
            fatalError("Firn: querying \(info.name): \(error)")
        }
        return count
    }

    public var isEmpty: Bool { count == 0 }

    /// The object at `index` in key order. Walking forwards costs one
    /// cursor step per index; other access walks from the first object.
    public subscript(index: Int) -> Element {
        source.checkAccess()
        if let planKeys {
            guard planKeys.indices.contains(index) else {
                fatalError("Firn: index \(index) out of range of \(planKeys.count) \(Element.self) objects")
            }
            let object = Element()
            object.managed = ManagedObject(source: source, info: info, key: planKeys[index])
            return object
        }
        // Walking forwards is one cursor step per index; any other access
        // finds the keys once for the version (as a query does) and reads
        // the record under the key.
        if index >= 0, let object = position.object(at: index, of: self) { return object }
        let keys = matches.keys(source, info, QueryPlan())
        guard keys.indices.contains(index) else {
            fatalError("Firn: index \(index) out of range of \(keys.count) \(Element.self) objects")
        }
        let object = Element()
        object.managed = ManagedObject(source: source, info: info, key: keys[index])
        return object
    }

    /// The last object, found from the end of the type's tree (or of a query's keys).
    public var last: Element? {
        source.checkAccess()
        if let planKeys {
            guard let key = planKeys.last else { return nil }
            let object = Element()
            object.managed = ManagedObject(source: source, info: info, key: key)
            return object
        }
        do {
            guard let cursor = try source.cursor(info) else { return nil }
            guard let key = try engine({ () throws(FirnError) -> [UInt8]? in
                try cursor.last()
                return cursor.isValid ? try cursor.key : nil
            }) else { return nil }
            let object = Element()
            object.managed = ManagedObject(source: source, info: info, key: key)
            return object
        } catch {
            fatalError("Firn: reading \(info.name): \(error)")
        }
    }

    public var first: Element? {
        var iterator = makeIterator()
        return iterator.next()
    }

    public func makeIterator() -> ResultsIterator<Element> {
        source.checkAccess()
        guard let plan else { return ResultsIterator(source: source, info: info) }
        // Found now, the matches come with their records: each object
        // starts with its record instead of finding it again by key.
        let info = info
        let found = matches.matches(source, info, plan, keepRecords: true)
        return ResultsIterator(source: source, info: info, keys: found.keys, records: found.records)
    }

    /// These results at the version their instance reads now, readable
    /// from any thread; they share the version's one `frozen` pin.
    public func freeze() throws(DatabaseError) -> Results<Element> {
        guard let core = source as? DatabaseCore else { return self }
        return Results(source: try core.frozenVersion(operation: "freeze Results<\(Element.self)>"), plan: plan)
    }

    /// The live results of the caller's instance (its actor's, its queue's
    /// or its thread's), refreshed first when it reads an older version than these.
    public func thaw() throws(DatabaseError) -> Results<Element> {
        guard let frozen = source as? FrozenVersion else { return self }
        let core = try InstanceCache.callersInstance(frozen.configuration)
        try core.catchUp(to: frozen.version)
        return Results(source: core, plan: plan)
    }

    /// The iterator behind sequential subscripting, for one generation of
    /// the source (positions move when the version does); locked because
    /// frozen results may be subscripted from several threads at once.
    final class PositionCache {
        private let lock = NSLock()
        private var iterator: ResultsIterator<Element>?
        private var generation: UInt64 = 0
        private var index = -1
        private var current: Element?
        /// How far ahead a forward walk goes before the keys are found instead.
        static var steps: Int { 64 }

        /// The object at `wanted` when it is at most a few steps ahead of
        /// the last one asked for (or of the start); else nil, and the
        /// caller finds it by key.
        func object(at wanted: Int, of results: Results<Element>) -> Element? {
            lock.lock()
            defer { lock.unlock() }
            if iterator == nil || generation != results.source.generation {
                iterator = results.makeIterator()
                generation = results.source.generation
                index = -1
                current = nil
            }
            guard wanted >= index, wanted <= Swift.max(index, 0) + Self.steps, !(wanted == index && current == nil) else { return nil }
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
    /// A frozen version is read through a view of its own (see
    /// `FrozenVersion.view()`).
    let source: any ObjectSource
    let info: ClassInfo
    private var cursor: Cursor?
    private var generation: UInt64 = 0
    private var lastKey: ObjectKeyBytes?
    private var done = false
    /// A query's matching keys, walked instead of the tree.
    private let keys: [[UInt8]]?
    /// Their records when the query found them for this iteration (at
    /// `generation`): used while the source stays at that generation.
    private let records: [RecordBytes]?
    private var keyIndex = 0

    init(source: any ObjectSource, info: ClassInfo, keys: [[UInt8]]? = nil, records: [RecordBytes]? = nil) {
        self.source = (source as? FrozenVersion)?.view() ?? source
        self.info = info
        self.keys = keys
        self.records = records.flatMap { $0.count == keys?.count ? $0 : nil }
        generation = source.generation
    }

    public mutating func next() -> Element? {
        guard !done else { return nil }
        source.checkAccess()
        if let keys { return nextMatch(keys) }
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
                    if let lastKey = lastKey?.array {
                        try fresh.seek(lastKey)
                        if fresh.isValid, try fresh.withKey({ $0.elementsEqual(lastKey) }) == true { try fresh.next() }
                    } else {
                        try fresh.first()
                    }
                }
            }
            guard let cursor, cursor.isValid,
                  let key = try engine({ () throws(FirnError) in try ObjectKeyBytes.current(of: cursor) }) else {
                done = true
                return nil
            }
            lastKey = key
            // The cursor is on the record: the object starts with it.
            let record = try engine { () throws(FirnError) in try cursor.currentValue }.map(RecordBytes.mapped)
            let object = Element()
            object.managed = ManagedObject(source: source, info: info, keyBytes: key, record: record)
            return object
        } catch {
            fatalError("Firn: iterating \(info.name): \(error)")
        }
    }

    /// The next of a query's keys; after a change in the source (deleting
    /// while iterating) keys whose object is gone are skipped.
    private mutating func nextMatch(_ keys: [[UInt8]]) -> Element? {
        while keyIndex < keys.count {
            let key = keys[keyIndex]
            let position = keyIndex
            keyIndex += 1
            var record: RecordBytes?
            if generation != source.generation {
                do {
                    guard let current = try source.record(info, key: key) else { continue }
                    record = current
                } catch {
                    fatalError("Firn: iterating \(info.name): \(error)")
                }
            } else if let records {
                record = records[position]
            }
            let object = Element()
            object.managed = ManagedObject(source: source, info: info, key: key, record: record)
            return object
        }
        done = true
        return nil
    }
}
