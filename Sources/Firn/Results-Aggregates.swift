import FirnCore

/// The numbers `sum(of:)` and `average(of:)` add: every integer width,
/// Double and Float, and their optionals (whose nulls are left out). The
/// underscored requirement is the SDK's.
public protocol QueryNumeric: QueryComparable {
    /// What `sum(of:)` returns: `Int` for integers of every width (an
    /// `Int8` property of a hundred objects easily sums past `Int8.max`),
    /// `Double` for Double and Float.
    associatedtype Total
    static func _total(integers: Int, reals: Double) -> Total
}

extension Int: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Int { integers } }
extension Int8: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Int { integers } }
extension Int16: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Int { integers } }
extension Int32: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Int { integers } }
extension Int64: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Int { integers } }
extension Double: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Double { reals } }
extension Float: QueryNumeric { public static func _total(integers: Int, reals: Double) -> Double { reals } }
extension Optional: QueryNumeric where Wrapped: QueryNumeric & PersistablePrimitive {
    public static func _total(integers: Int, reals: Double) -> Wrapped.Total { Wrapped._total(integers: integers, reals: reals) }
}

/// Aggregates over the objects of results, computed from their records in
/// one pass: no object is made (Realm's names, with key paths). Nulls are
/// left out; min and max are nil, and average nil, when no value is left.
/// A key path that reads no stored property is `.unknownProperty`, as in `sorted`.
///
/// ```swift
/// let oldest = try dogs.max(of: \.age)    // Int?
/// let years = try dogs.sum(of: \.age)      // Int
/// let mean = try dogs.average(of: \.age)   // Double?
/// ```
extension Results {
    /// The smallest value of the property (strings by code point).
    public func min<Value: QueryComparable & PersistablePrimitive>(of keyPath: KeyPath<Element, Value>) throws(DatabaseError) -> Value? {
        try extreme(keyPath, smallest: true)
    }

    public func min<Value: QueryComparable & PersistablePrimitive>(of keyPath: KeyPath<Element, Value?>) throws(DatabaseError) -> Value? {
        try extreme(keyPath, smallest: true)
    }

    /// The largest value of the property.
    public func max<Value: QueryComparable & PersistablePrimitive>(of keyPath: KeyPath<Element, Value>) throws(DatabaseError) -> Value? {
        try extreme(keyPath, smallest: false)
    }

    public func max<Value: QueryComparable & PersistablePrimitive>(of keyPath: KeyPath<Element, Value?>) throws(DatabaseError) -> Value? {
        try extreme(keyPath, smallest: false)
    }

    /// The sum of the property's values (0 when there are none). An
    /// integer sum past `Int.max` stops the program, as `+` does.
    public func sum<Value: QueryNumeric>(of keyPath: KeyPath<Element, Value>) throws(DatabaseError) -> Value.Total {
        let (integers, reals, _) = try total(keyPath)
        return Value._total(integers: integers, reals: reals)
    }

    /// The mean of the property's values, nil when there are none.
    public func average<Value: QueryNumeric>(of keyPath: KeyPath<Element, Value>) throws(DatabaseError) -> Double? {
        let (integers, reals, count) = try total(keyPath)
        guard count > 0 else { return nil }
        return (Double(integers) + reals) / Double(count)
    }

    private func total<Value: QueryNumeric>(_ keyPath: KeyPath<Element, Value>) throws(DatabaseError) -> (integers: Int, reals: Double, count: Int) {
        var integers = 0, reals = 0.0, count = 0
        // Integers are added as read from the records, no `FieldValue` made.
        if RecordReader.isInteger(Value._persistedType.type) {
            func add(_ x: Int) {
                let (sum, overflow) = integers.addingReportingOverflow(x)
                guard !overflow else { fatalError("Firn: the sum of \(Element.self).\(keyPath) is past Int.max") }
                integers = sum
            }
            // Most records are added in the scan's leaf loop (`IntegerScan`);
            // the rest (another width, null, or a defect to report) here.
            let decided = try forEachRecord(of: keyPath, Value._persistedType, summing: true) { (reader, slot) throws(FirnError) in
                guard let x = try reader.integer(slot) else { return }
                add(Int(truncatingIfNeeded: x))
                count += 1
            }
            if let decided {
                add(decided.sum)
                count += decided.count
            }
            return (integers, reals, count)
        }
        try forEachValue(of: keyPath, Value._persistedType) { value in
            switch value {
            case let .int(x):
                let (sum, overflow) = integers.addingReportingOverflow(Int(truncatingIfNeeded: x))
                guard !overflow else { fatalError("Firn: the sum of \(Element.self).\(keyPath) is past Int.max") }
                integers = sum
            case let .double(x): reals += x
            case let .float(x): reals += Double(x)
            default: return
            }
            count += 1
        }
        return (integers, reals, count)
    }

    private func extreme<Value: PersistablePrimitive, Path: PersistableValue>(_ keyPath: KeyPath<Element, Path>, smallest: Bool) throws(DatabaseError) -> Value? {
        var best: FieldValue?
        try forEachValue(of: keyPath, Path._persistedType) { value in
            // NaN compares with nothing: it is never the extreme.
            guard let best0 = best else {
                if Condition.order(value, value) == 0 { best = value }
                return
            }
            guard let order = Condition.order(value, best0) else { return }
            if smallest ? order < 0 : order > 0 { best = value }
        }
        return best.flatMap { Value._persisted(from: PersistedField($0)) }
    }

    /// Calls `body` with each non-null value of the property in these
    /// results (`forEachRecord`).
    private func forEachValue<Value>(of keyPath: KeyPath<Element, Value>, _ stored: PersistedType,
                                     _ body: (FieldValue) -> Void) throws(DatabaseError) {
        try forEachRecord(of: keyPath, stored) { (reader, slot) throws(FirnError) in
            if let value = try reader.value(slot) { body(value) }
        }
    }

    /// Calls `body` with a reader holding the property's field of each
    /// record in these results, and the property's slot in it: a scan (or
    /// an index lookup) with the condition, the field read from the record
    /// in place (`RecordReader`); the keys (then the records) only when a
    /// `distinct` decides which objects are in.
    ///
    /// `summing` (an `Int` property): the scan counts and adds the records
    /// it can in its leaf loop, without calling `body`, and returns those
    /// tallies (`IntegerScan`).
    @discardableResult
    private func forEachRecord<Value>(of keyPath: KeyPath<Element, Value>, _ stored: PersistedType, summing: Bool = false,
                                      _ body: (RecordReader, Int) throws(FirnError) -> Void) throws(DatabaseError) -> IntegerScan? {
        source.checkAccess()
        let info = try source.info(Element.self)
        guard let index = info.index(of: keyPath), Query<Element>.matches(stored, info.schema.properties[index]) else {
            throw DatabaseError.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath))
        }
        if let plan, plan.hasDistinct {
            let reader = RecordReader(info.schema, condition: nil, reading: [index])
            let slot = reader.slot(of: index)
            for key in matches.keys(source, info, plan) {
                guard let record = try source.record(info, key: key) else { continue }
                try record.withBytes { (bytes) throws(DatabaseError) in
                    try engine { () throws(FirnError) in
                        try reader.load(bytes)
                        try body(reader, slot)
                    }
                }
            }
            return nil
        } else {
            let plan = plan ?? QueryPlan()
            let reader = RecordReader(info.schema, condition: plan.condition, reading: [index])
            let slot = reader.slot(of: index)
            let integers = summing ? reader.integerScan(tallying: true, summing: slot) : reader.integerScan(tallying: false)
            return try plan.scan(source, info, reader, deciding: integers) { (_) throws(DatabaseError) in
                try engine { () throws(FirnError) in try body(reader, slot) }
            }
        }
    }
}
