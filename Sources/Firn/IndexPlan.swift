import FirnCore

/// Where an index can list every object a condition may match (a superset:
/// each candidate is still checked against the whole condition): runs of
/// the index tree of one property. From the condition's top-level `&&`
/// terms: an equality (one run of equal values), an `in` (one run per
/// value), or bounds (`<`…`>=`, a Swift range) on an integer or Date
/// property, whose index keys sort as the values do. Strings get no range
/// runs: a string cut to its index prefix sorts before longer strings that
/// share the prefix, so its place in the order is not its value's.
struct IndexPlan {
    /// A run of index entries: from `start`, while `contains` holds.
    struct Run {
        let start: [UInt8]
        let contains: ([UInt8]) -> Bool
    }

    let index: Int
    let runs: [Run]
    /// One run of equal values lists its objects in key order; other
    /// plans' candidates are sorted into key order.
    var inKeyOrder: Bool { runs.count == 1 && isEquality }
    var isEquality = false

    /// The best plan for `condition` on `schema`: an equality, else the
    /// `in` with the fewest values, else a range; nil when no term can use
    /// an index (then the type's records are walked).
    static func of(_ condition: Condition, _ schema: ObjectSchema) -> IndexPlan? {
        var terms: [Condition] = []
        func collect(_ condition: Condition) {
            if case let .and(lhs, rhs) = condition { collect(lhs); collect(rhs) } else { terms.append(condition) }
        }
        collect(condition)
        func indexed(_ index: Int) -> PropertyType? {
            let property = schema.properties[index]
            return property.isIndexed && !property.isList ? property.type : nil
        }
        var best: IndexPlan?
        for term in terms {
            switch term {
            case let .compare(index, .equal, value):
                guard let type = indexed(index), let prefix = IndexKey.prefix(value, as: type) else { continue }
                return IndexPlan(index: index, runs: [Run(start: prefix) { $0.starts(with: prefix) }], isEquality: true)
            case let .oneOf(index, values):
                guard let type = indexed(index) else { continue }
                var prefixes: [[UInt8]] = []
                for value in values {
                    guard let prefix = IndexKey.prefix(value, as: type) else { prefixes = []; break }
                    if !prefixes.contains(prefix) { prefixes.append(prefix) }
                }
                guard !prefixes.isEmpty || values.isEmpty else { continue }
                if let best, best.runs.count <= prefixes.count { continue }
                best = IndexPlan(index: index, runs: prefixes.map { prefix in Run(start: prefix) { $0.starts(with: prefix) } })
            default: continue
            }
        }
        if best != nil { return best }
        return range(terms, schema)
    }

    /// Bounds on one integer or Date property from the `&&` terms.
    private static func range(_ terms: [Condition], _ schema: ObjectSchema) -> IndexPlan? {
        for (index, property) in schema.properties.enumerated() where property.isIndexed && !property.isList {
            let width: Int
            switch property.type {
            case .int, .int64, .date: width = 8
            case .int32: width = 4
            case .int16: width = 2
            case .int8: width = 1
            default: continue
            }
            var lower: [UInt8]?, upper: [UInt8]?
            for case let .compare(term, comparison, value?) in terms where term == index {
                // Null and NaN bounds match nothing: no plan, the walk finds nothing.
                if case let .date(x) = value, x.isNaN { continue }
                // A bound the property's width cannot hold (Int8 > 1000) stays to the walk.
                guard let encoded = IndexKey.prefix(value, as: property.type) else { continue }
                switch comparison {
                case .greater, .greaterOrEqual: if lower.map({ encoded.lexicographicallyPrecedes($0) == false }) ?? true { lower = encoded }
                case .less, .lessOrEqual: if upper.map({ encoded.lexicographicallyPrecedes($0) }) ?? true { upper = encoded }
                default: continue
                }
            }
            guard lower != nil || upper != nil else { continue }
            // Non-null values only (tag 1); the value is the first 1 + width bytes.
            let start = lower ?? [1]
            let run = Run(start: start) { key in
                guard key.first == 1, key.count > width else { return false }
                guard let upper else { return true }
                return !upper.lexicographicallyPrecedes(key.prefix(1 + width))
            }
            return IndexPlan(index: index, runs: [run])
        }
        return nil
    }

    /// The object keys the runs hold, each once, in key order.
    func candidates(_ source: any ObjectSource, _ schema: ObjectSchema) throws(DatabaseError) -> [[UInt8]] {
        let property = schema.properties[index]
        guard let cursor = try source.cursor(in: schema.indexTreeName(property)) else { return [] }
        var keys: [[UInt8]] = []
        try engine { () throws(FirnError) in
            for run in runs {
                try cursor.seek(run.start)
                while cursor.isValid, let key = try cursor.key, run.contains(key) {
                    let length = try key.withUnsafeBytes { bytes in
                        Result { () throws(FirnError) in try IndexKey.valueLength(bytes, as: property.type) }
                    }.get()
                    keys.append(Array(key[length...]))
                    try cursor.next()
                }
            }
        }
        if !inKeyOrder { keys.sort { $0.lexicographicallyPrecedes($1) } }
        return keys
    }
}
