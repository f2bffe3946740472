import FirnCore

/// What `where` and `sorted` ask of a type's objects: a condition and a
/// sort order. Results with a plan find their matching keys on first use
/// (through an index when the condition has an equality on an indexed
/// property, else with one scan of the type's tree) and again whenever
/// their source moves to another generation: lazy and live.
struct QueryPlan: Sendable {
    struct SortKey: Sendable {
        let index: Int
        let ascending: Bool
    }

    var condition: Condition?
    var sort: [SortKey] = []

    /// The keys of the matching objects, in sort order (else key order).
    func matchingKeys(_ source: any ObjectSource, _ info: ClassInfo) throws(DatabaseError) -> [[UInt8]] {
        let schema = info.schema
        var keys: [[UInt8]] = []
        var sortValues: [[FieldValue?]] = []
        func consider(_ key: [UInt8], _ bytes: UnsafeRawBufferPointer) throws(FirnError) {
            var fields = RecordFields(bytes, schema)
            guard try condition?.matches(&fields) ?? true else { return }
            keys.append(key)
            if !sort.isEmpty {
                var values: [FieldValue?] = []
                for key in sort { values.append(try fields.value(key.index)) }
                sortValues.append(values)
            }
        }
        if let (index, value) = condition?.indexedEquality(schema),
           let prefix = IndexKey.prefix(value, as: schema.properties[index].type) {
            // Candidates from the index, each confirmed against its record
            // (the rest of the condition, and cut long strings).
            if let cursor = try source.cursor(in: schema.indexTreeName(schema.properties[index])) {
                var candidates: [[UInt8]] = []
                try engine { () throws(FirnError) in
                    try cursor.seek(prefix)
                    while cursor.isValid, let key = try cursor.key, key.starts(with: prefix) {
                        candidates.append(Array(key[prefix.count...]))
                        try cursor.next()
                    }
                }
                for key in candidates {
                    guard let record = try source.record(info, key: key) else { continue }
                    try engine { () throws(FirnError) in try record.withBytes { (bytes) throws(FirnError) in try consider(key, bytes) } }
                }
            }
        } else if let cursor = try source.cursor(info) {
            try engine { () throws(FirnError) in
                try cursor.first()
                while cursor.isValid, let key = try cursor.key {
                    let inline = try cursor.withInlineValue { bytes in Result { () throws(FirnError) in try consider(key, bytes) } }
                    if let inline {
                        try inline.get()
                    } else if let value = try cursor.value {
                        try value.withUnsafeBytes { bytes in Result { () throws(FirnError) in try consider(key, bytes) } }.get()
                    }
                    try cursor.next()
                }
            }
        }
        guard !sort.isEmpty else { return keys }
        let order = keys.indices.sorted { a, b in
            for (position, key) in sort.enumerated() {
                let result = Self.order(sortValues[a][position], sortValues[b][position])
                if result != 0 { return key.ascending ? result < 0 : result > 0 }
            }
            return a < b  // equal values keep key order
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

/// The matching keys of one results value for one source generation,
/// shared by its copies; locked because frozen results may be read from
/// several threads at once.
final class MatchCache: @unchecked Sendable {
    private let lock = Locked<(generation: UInt64, keys: [[UInt8]])?>(nil)

    func keys(_ source: any ObjectSource, _ info: ClassInfo, _ plan: QueryPlan) -> [[UInt8]] {
        let generation = source.generation
        if let cached = lock.withLock({ $0 }), cached.generation == generation { return cached.keys }
        let keys: [[UInt8]]
        do { keys = try plan.matchingKeys(source, info) } catch { fatalError("Firn: querying \(info.name): \(error)") }
        lock.withLock { $0 = (generation, keys) }
        return keys
    }
}
