import FirnCore

/// What `where`, `sorted` and `distinct` ask of a type's objects: a
/// condition, then orderings and distinct steps in the order they were
/// asked for. Results with a plan find their matching keys on first use
/// (through an index when the condition has an equality on an indexed
/// property, else with one scan of the type's tree) and again whenever
/// their source moves to another generation: lazy and live.
struct QueryPlan: Sendable {
    /// A property a step reads: of the queried object (no hops), or of
    /// the object its to-one links reach (`owner.name`: a null or deleted
    /// link reads null).
    struct Column: Sendable, Equatable {
        /// Each link followed: the link property and its target's schema.
        var hops: [(index: Int, target: ObjectSchema)] = []
        let index: Int

        static func == (a: Column, b: Column) -> Bool { a.index == b.index && a.hops.map(\.index) == b.hops.map(\.index) }

        /// The value in `fields`, following the hops through `reads`.
        func value(_ fields: inout RecordFields, _ reads: QueryReads) throws(DatabaseError) -> FieldValue? {
            try Self.value(hops[...], index, &fields, reads)
        }

        private static func value(_ hops: ArraySlice<(index: Int, target: ObjectSchema)>, _ index: Int,
                                  _ fields: inout RecordFields, _ reads: QueryReads) throws(DatabaseError) -> FieldValue? {
            guard let hop = hops.first else { return try fields.value(index) }
            guard case let .link(key)? = try fields.value(hop.index) else { return nil }
            return try reads.withRecord(hop.target, key: key) { (target) throws(DatabaseError) in
                guard var target else { return nil }
                return try value(hops.dropFirst(), index, &target, reads)
            }
        }
    }

    struct SortKey: Sendable {
        let column: Column
        let ascending: Bool
    }

    /// A step after the condition: sort (stable: ties keep the order they
    /// had, key order at first), or keep the first object of each distinct
    /// combination of the properties' values.
    enum Step: Sendable {
        case sort([SortKey])
        case distinct([Column])

        var columns: [Column] {
            switch self {
            case let .sort(keys): return keys.map(\.column)
            case let .distinct(columns): return columns
            }
        }
    }

    var condition: Condition?
    var steps: [Step] = []

    /// A new order replaces the one it follows directly (Firn's `sorted`
    /// replaces an earlier order); after a `distinct` it sorts what the
    /// distinct kept.
    mutating func sort(_ keys: [SortKey]) {
        if case .sort? = steps.last { steps.removeLast() }
        steps.append(.sort(keys))
    }

    /// Whether a `distinct` decides which objects are in (else the
    /// condition alone does, and the steps only order them).
    var hasDistinct: Bool {
        steps.contains { if case .distinct = $0 { return true } else { return false } }
    }

    /// The trees the condition and the steps read besides the type's own.
    func treesRead(_ schema: ObjectSchema) -> Set<String> {
        var trees = Set<String>()
        condition?.treesRead(schema, into: &trees)
        // Orders and distincts through links read the linked types' records.
        for step in steps { for column in step.columns { for hop in column.hops { trees.insert(hop.target.treeName) } } }
        return trees
    }

    /// One record a scan matched, valid during the visit only.
    struct Match {
        /// The object's key and its record.
        let key: UnsafeRawBufferPointer
        let bytes: UnsafeRawBufferPointer
        /// The record, kept when the scan was asked to keep records and
        /// could (a snapshot's record, or a lookup's): an object made with
        /// it reads its properties without finding the record again.
        let kept: RecordBytes?
    }

    /// Calls `visit` with each record the condition matches, in key order:
    /// from a walk of the type's records (`Cursor.forEachEntry`), or from
    /// the candidates an index lists (`IndexPlan`), each confirmed against
    /// its record. `reader`, made for this plan's condition, evaluates it
    /// on the record's bytes and has the record's fields loaded when
    /// `visit` runs; a condition it could not compile (links, lists) is
    /// evaluated with `Condition.matches`.
    ///
    /// `integers` (from `reader.integerScan`) tests the condition in the
    /// cursor's leaf loop and, tallying, counts (and adds) the records it
    /// decides there instead of visiting them: the scan returns it with
    /// those tallies. An index's candidates are all visited.
    @discardableResult
    func scan(_ source: any ObjectSource, _ info: ClassInfo, _ reader: RecordReader, keepRecords: Bool = false,
              deciding integers: IntegerScan? = nil,
              _ visit: (Match) throws(DatabaseError) -> Void) throws(DatabaseError) -> IntegerScan? {
        let schema = info.schema
        let reads = QueryReads(source)
        let uncompiled = reader.isCompiled ? nil : condition
        /// `loaded`: the reader's fields were found by the cursor's walk;
        /// `held`: and its compiled condition holds.
        func consider(_ key: UnsafeRawBufferPointer, _ bytes: UnsafeRawBufferPointer, _ record: RecordBytes?,
                      _ cursor: Cursor?, stable: Bool, loaded: Bool, held: Bool = false) throws(DatabaseError) {
            if let uncompiled {
                var fields = RecordFields(bytes, schema, keyBytes: key)
                guard try uncompiled.matches(&fields, reads) else { return }
            }
            do {
                if !loaded { try reader.load(bytes) }
                if !held, try !reader.holds() { return }
            } catch {
                throw DatabaseError.engine(error)
            }
            var kept: RecordBytes?
            if keepRecords { kept = record ?? (stable ? cursor.map { .mapped($0.retainedValue(bytes)) } : nil) }
            try visit(Match(key: key, bytes: bytes, kept: kept))
        }
        if let condition, let index = IndexPlan.of(condition, schema) {
            // Candidates from the index, each confirmed against its record
            // (the rest of the condition, cut long strings, the bounds' ends).
            for key in try index.candidates(source, schema) {
                guard let record = try source.record(info, key: key) else { continue }
                try record.withBytes { (bytes) throws(DatabaseError) in
                    try key.withUnsafeBytes { keyBytes in
                        Result { () throws(DatabaseError) in try consider(keyBytes, bytes, record, nil, stable: false, loaded: false) }
                    }.get()
                }
            }
            return integers
        }
        guard let cursor = try source.cursor(info) else { return integers }
        // Kept records are read again after the scan: their pages stay.
        cursor.keepsResidentPages = keepRecords
        var failure: DatabaseError?
        let (tags, fields) = reader.loadedByScan
        // The leaf loop updates the scan in place (a plain value: no
        // reference counting or exclusivity checks per record).
        let decided = integers.map { scan in
            let pointer = UnsafeMutablePointer<IntegerScan>.allocate(capacity: 1)
            pointer.initialize(to: scan)
            return pointer
        }
        defer { decided?.deallocate() }
        try engine { () throws(FirnError) in
            try cursor.first()
            try cursor.forEachEntry(reading: tags, into: fields, deciding: decided) { key, bytes, stable in
                // Most records of a selective scan fail the compiled
                // condition: rejected here, before anything else is set up.
                if uncompiled == nil {
                    do throws(FirnError) {
                        guard try reader.holds() else { return true }
                    } catch {
                        failure = .engine(error)
                        return false
                    }
                }
                do throws(DatabaseError) {
                    try consider(key, bytes, nil, cursor, stable: stable, loaded: true, held: uncompiled == nil)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
        return decided?.pointee ?? integers
    }

    /// The keys of the matching objects, in sort order (else key order),
    /// after the distinct steps.
    func matchingKeys(_ source: any ObjectSource, _ info: ClassInfo) throws(DatabaseError) -> [[UInt8]] {
        try matches(source, info, keepRecords: false).keys
    }

    /// A query's matching keys and, when asked for and every match's
    /// record could be kept, their records in the same order.
    struct Matches {
        var keys: [[UInt8]]
        var records: [RecordBytes]? = nil
    }

    func matches(_ source: any ObjectSource, _ info: ClassInfo, keepRecords: Bool) throws(DatabaseError) -> Matches {
        // The properties the steps read, each once per match: the queried
        // object's own from the reader's fields, through links with `reads`.
        var columns: [Column] = []
        for step in steps { for column in step.columns where !columns.contains(column) { columns.append(column) } }
        let reader = RecordReader(info.schema, condition: condition, reading: columns.filter(\.hops.isEmpty).map(\.index))
        let slots = columns.map { $0.hops.isEmpty ? reader.slot(of: $0.index) : nil }
        let reads = QueryReads(source)
        var keys: [[UInt8]] = []
        var records: [RecordBytes] = []
        var keeping = keepRecords
        // The values of row r are values[r * width ..< (r + 1) * width]:
        // one array for all rows, not one per row.
        let width = columns.count
        var values: [FieldValue?] = []
        try scan(source, info, reader, keepRecords: keepRecords, deciding: reader.integerScan(tallying: false)) { (match) throws(DatabaseError) in
            keys.append(Array(match.key))
            if keeping {
                if let kept = match.kept { records.append(kept) } else { keeping = false; records = [] }
            }
            for (column, slot) in zip(columns, slots) {
                if let slot {
                    values.append(try engine { () throws(FirnError) in try reader.value(slot) })
                } else {
                    var fields = RecordFields(match.bytes, info.schema, keyBytes: match.key)
                    values.append(try column.value(&fields, reads))
                }
            }
        }
        guard !steps.isEmpty else { return Matches(keys: keys, records: keeping ? records : nil) }
        var order = Array(keys.indices)
        for step in steps {
            switch step {
            case let .sort(sortKeys):
                let positions = sortKeys.map { key in (columns.firstIndex(of: key.column) ?? 0, key.ascending) }
                // Stable: the rank in the order before breaks ties.
                var rank = [Int](repeating: 0, count: keys.count)
                for (position, row) in order.enumerated() { rank[row] = position }
                order.sort { a, b in
                    for (column, ascending) in positions {
                        let result = Self.order(values[a * width + column], values[b * width + column])
                        if result != 0 { return ascending ? result < 0 : result > 0 }
                    }
                    return rank[a] < rank[b]
                }
            case let .distinct(distinct):
                let positions = distinct.map { columns.firstIndex(of: $0) ?? 0 }
                var seen = Set<[DistinctValue]>()
                order = order.filter { row in seen.insert(positions.map { DistinctValue(values[row * width + $0]) }).inserted }
            }
        }
        return Matches(keys: order.map { keys[$0] }, records: keeping ? order.map { records[$0] } : nil)
    }

    /// Sort order of two values: null first, then by value.
    static func order(_ a: FieldValue?, _ b: FieldValue?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (a?, b?): return Condition.order(a, b) ?? 0
        }
    }
}

/// A property value as `distinct` compares it: equal when a query's `==`
/// would say so (so 0.0 and -0.0 are one value; null is a value of its own).
struct DistinctValue: Hashable {
    let value: FieldValue?

    init(_ value: FieldValue?) {
        // -0.0 == 0.0 but their bits differ: hash them as one value.
        switch value {
        case let .double(x)? where x == 0: self.value = .double(0)
        case let .float(x)? where x == 0: self.value = .float(0)
        case let .date(x)? where x == 0: self.value = .date(0)
        default: self.value = value
        }
    }

    /// As a query's `==` compares: strings by their bytes (not by Unicode
    /// equivalence, as `String`'s `==` would).
    static func == (lhs: DistinctValue, rhs: DistinctValue) -> Bool {
        switch (lhs.value, rhs.value) {
        case (nil, nil): return true
        case let (a?, b?): return Condition.order(a, b) == 0
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch value {
        case nil: hasher.combine(0)
        case let .bool(x)?: hasher.combine(x)
        case let .int(x)?: hasher.combine(x)
        case let .double(x)?, let .date(x)?: hasher.combine(x)
        case let .float(x)?: hasher.combine(x)
        case let .string(x)?: for byte in x.utf8 { hasher.combine(byte) }
        case let .data(x)?, let .uuid(x)?, let .link(x)?: hasher.combine(x)
        // One encoding per value (FORMAT.md 12.2): equal values, equal bits.
        case let .decimal(x)?: hasher.combine(x)
        }
    }
}

/// The matching keys of one results value for one source generation,
/// shared by its copies; locked because frozen results may be read from
/// several threads at once.
final class MatchCache: @unchecked Sendable {
    private let lock = Locked<(generation: UInt64, keys: [[UInt8]])?>(nil)

    /// The keys already found for the source's generation, if any.
    func cached(_ source: any ObjectSource) -> [[UInt8]]? {
        let generation = source.generation
        guard let cached = lock.withLock({ $0 }), cached.generation == generation else { return nil }
        return cached.keys
    }

    func keys(_ source: any ObjectSource, _ info: ClassInfo, _ plan: QueryPlan) -> [[UInt8]] {
        matches(source, info, plan, keepRecords: false).keys
    }

    /// The keys, with their records when they were found now and
    /// `keepRecords` asked for them: an iteration's objects start with
    /// their records rather than finding each again. Only the keys are
    /// cached: records kept beyond an iteration would keep its version.
    func matches(_ source: any ObjectSource, _ info: ClassInfo, _ plan: QueryPlan, keepRecords: Bool) -> QueryPlan.Matches {
        let generation = source.generation
        if let cached = lock.withLock({ $0 }), cached.generation == generation { return QueryPlan.Matches(keys: cached.keys) }
        let matches: QueryPlan.Matches
        do { matches = try plan.matches(source, info, keepRecords: keepRecords) } catch { fatalError("Firn: querying \(info.name): \(error)") }
        lock.withLock { $0 = (generation, matches.keys) }
        return matches
    }
}
