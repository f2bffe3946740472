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

    /// Calls `visit` with each record the condition matches, in key order:
    /// from a walk of the type's records, or from the candidates an index
    /// lists (`IndexPlan`). `visit`'s
    /// fields can give the object's key.
    func forEachMatch(_ source: any ObjectSource, _ info: ClassInfo,
                      _ visit: (inout RecordFields) throws(DatabaseError) -> Void) throws(DatabaseError) {
        let schema = info.schema
        let reads = QueryReads(source)
        let condition = condition
        func consider(_ fields: inout RecordFields) throws(DatabaseError) {
            if let condition, try !condition.matches(&fields, reads) { return }
            try visit(&fields)
        }
        if let condition, let index = IndexPlan.of(condition, schema) {
            // Candidates from the index, each confirmed against its record
            // (the rest of the condition, cut long strings, the bounds' ends).
            for key in try index.candidates(source, schema) {
                guard let record = try source.record(info, key: key) else { continue }
                try record.withBytes { (bytes) throws(DatabaseError) in
                    var fields = RecordFields(bytes, schema, key: key)
                    try consider(&fields)
                }
            }
            return
        }
        guard let cursor = try source.cursor(info) else { return }
        try engine { () throws(FirnError) in try cursor.first() }
        while cursor.isValid {
            let inline = try engine { () throws(FirnError) in
                try cursor.withInlineValue { bytes in
                    Result { () throws(DatabaseError) in
                        var fields = RecordFields(bytes, schema, cursor: cursor)
                        try consider(&fields)
                    }
                }
            }
            if let inline {
                try inline.get()
            } else if let value = try engine({ () throws(FirnError) in try cursor.value }) {
                try value.withUnsafeBytes { bytes in
                    Result { () throws(DatabaseError) in
                        var fields = RecordFields(bytes, schema, cursor: cursor)
                        try consider(&fields)
                    }
                }.get()
            }
            try engine { () throws(FirnError) in try cursor.next() }
        }
    }

    /// The keys of the matching objects, in sort order (else key order),
    /// after the distinct steps.
    func matchingKeys(_ source: any ObjectSource, _ info: ClassInfo) throws(DatabaseError) -> [[UInt8]] {
        // The properties the steps read, each once per match.
        var columns: [Column] = []
        for step in steps { for column in step.columns where !columns.contains(column) { columns.append(column) } }
        let reads = QueryReads(source)
        var keys: [[UInt8]] = []
        // The values of row r are values[r * width ..< (r + 1) * width]:
        // one array for all rows, not one per row.
        let width = columns.count
        var values: [FieldValue?] = []
        try forEachMatch(source, info) { (fields) throws(DatabaseError) in
            guard let key = try fields.key() else { return }
            keys.append(key)
            for column in columns { values.append(try column.value(&fields, reads)) }
        }
        guard !steps.isEmpty else { return keys }
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
        return order.map { keys[$0] }
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
        let generation = source.generation
        if let cached = lock.withLock({ $0 }), cached.generation == generation { return cached.keys }
        let keys: [[UInt8]]
        do { keys = try plan.matchingKeys(source, info) } catch { fatalError("Firn: querying \(info.name): \(error)") }
        lock.withLock { $0 = (generation, keys) }
        return keys
    }
}
