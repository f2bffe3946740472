import FirnCore
import Foundation

/// A checked query condition: properties by schema index, values already
/// in their stored form. Evaluated against one object's record; conditions
/// through links and lists read the linked records and list elements from
/// the same version (`QueryReads`).
indirect enum Condition: Sendable {
    enum Comparison: Sendable { case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual }
    enum TextMatch: Sendable { case contains, beginsWith, endsWith }
    /// How a condition on a list's elements holds for the list: for some
    /// element (Realm's ANY, false for an empty list) or for every one
    /// (ALL, true for an empty list, as `allSatisfy` is).
    enum Quantifier: Sendable { case any, all }

    case compare(Int, Comparison, FieldValue?)
    case oneOf(Int, [FieldValue?])
    case text(Int, TextMatch, String, caseInsensitive: Bool)
    case and(Condition, Condition)
    case or(Condition, Condition)
    case not(Condition)
    /// The condition on the object the link property `Int` points to, whose
    /// type's schema is given. A null link, or one whose target was deleted,
    /// reaches the null object: every property reads null, every list is empty.
    case link(Int, ObjectSchema, Condition)
    /// The condition on the objects of the list property `Int` (of objects
    /// of the given schema), quantified.
    case list(Int, ObjectSchema, Quantifier, Condition)
    /// The condition on each value of the list property `Int` (a list of
    /// values), quantified; the condition reads the value as property 0.
    case values(Int, Quantifier, Condition)
    /// The condition on each key of the map property `Int` (as a String
    /// property 0), quantified: `$0.scores.keys.contains("a")`.
    case keys(Int, Quantifier, Condition)
    /// The condition on the value of map property `Int` at key `String`
    /// (read as property 0; a map without the key reads null there):
    /// `$0.scores["ann"] == 5`.
    case mapValue(Int, String, Condition)
    /// The number of elements of the list property `Int` compared with a count.
    case count(Int, Comparison, Int)
    /// The objects of another type linking to the object, counted (a
    /// `LinkingObjects` property in a query, `Query-Linking.swift`).
    case linking(LinkingTally)
    /// Holds for every object (a list's `isEmpty` is "no element is one").
    case constant(Bool)
    /// Holds for the null object only: what `$0.owner == nil` asks of the
    /// object the link reaches (null, or deleted: a link reads nil then).
    case isNull

    /// The trees the condition reads besides the queried type's own: the
    /// types its links reach and the list trees it walks. A notification
    /// recomputes a query when one of them changed.
    func treesRead(_ schema: ObjectSchema, into trees: inout Set<String>) {
        switch self {
        case .compare, .oneOf, .text, .constant, .isNull: return
        case let .and(lhs, rhs), let .or(lhs, rhs):
            lhs.treesRead(schema, into: &trees)
            rhs.treesRead(schema, into: &trees)
        case let .not(operand): operand.treesRead(schema, into: &trees)
        case let .link(_, target, condition):
            trees.insert(target.treeName)
            condition.treesRead(target, into: &trees)
        case let .values(index, _, _), let .keys(index, _, _), let .mapValue(index, _, _), let .count(index, _, _):
            trees.insert(schema.listTreeName(schema.properties[index]))
        case let .list(index, target, _, condition):
            trees.insert(schema.listTreeName(schema.properties[index]))
            trees.insert(target.treeName)
            condition.treesRead(target, into: &trees)
        case let .linking(tally):
            let origin = tally.origin.schema
            trees.insert(origin.treeName)
            if origin.properties[tally.index].isList { trees.insert(origin.listTreeName(origin.properties[tally.index])) }
            tally.condition.treesRead(origin, into: &trees)
        }
    }

    func matches(_ record: inout RecordFields, _ reads: QueryReads) throws(DatabaseError) -> Bool {
        switch self {
        case let .compare(index, comparison, value):
            return Self.compare(try record.value(index), comparison, value)
        case let .oneOf(index, values):
            let stored = try record.value(index)
            return values.contains { Self.compare(stored, .equal, $0) }
        case let .text(index, match, pattern, caseInsensitive):
            return Self.matchesText(try record.value(index), match, pattern, caseInsensitive: caseInsensitive)
        case let .and(lhs, rhs):
            guard try lhs.matches(&record, reads) else { return false }
            return try rhs.matches(&record, reads)
        case let .or(lhs, rhs):
            if try lhs.matches(&record, reads) { return true }
            return try rhs.matches(&record, reads)
        case let .not(operand): return try !operand.matches(&record, reads)
        case let .constant(value): return value
        case .isNull: return record.isNull
        case let .link(index, target, condition):
            guard case let .link(key)? = try record.value(index) else { return try condition.matchesNull(target, reads) }
            return try reads.withRecord(target, key: key) { (fields) throws(DatabaseError) in
                guard var fields else { return try condition.matchesNull(target, reads) }
                return try condition.matches(&fields, reads)
            }
        case let .linking(tally):
            // The null object has no objects linking to it.
            guard let key = try record.key() else { return tally.holds(0) }
            return tally.holds(try reads.linkingCount(tally, key))
        case let .count(index, comparison, count):
            let owner = try record.key()
            let elements = try owner.map { (owner) throws(DatabaseError) in try reads.listCount(record.schema, index, owner: owner) } ?? 0
            return Self.compare(.int(Int64(elements)), comparison, .int(Int64(count)))
        case let .mapValue(index, key, condition):
            // The null object's maps are empty: every key reads null.
            let value = try record.key().map { (owner) throws(DatabaseError) in try reads.mapValue(record.schema, index, owner: owner, key: key) } ?? nil
            var fields = RecordFields(value: value, record.schema)
            return try condition.matches(&fields, reads)
        case let .values(index, quantifier, condition), let .keys(index, quantifier, condition):
            guard let owner = try record.key() else { return quantifier == .all }
            let elements: [FieldValue?]
            if case .keys = self {
                elements = try reads.mapKeys(record.schema, index, owner: owner).map { .string($0) }
            } else {
                elements = try reads.listElements(record.schema, index, owner: owner)
            }
            for element in elements {
                var fields = RecordFields(value: element, record.schema)
                let holds = try condition.matches(&fields, reads)
                if holds, quantifier == .any { return true }
                if !holds, quantifier == .all { return false }
            }
            return quantifier == .all
        case let .list(index, target, quantifier, condition):
            // The null object's lists are empty.
            guard let owner = try record.key() else { return quantifier == .all }
            let elements = try reads.listElements(record.schema, index, owner: owner)
            for element in elements {
                // A list of objects holds no null and no deleted target
                // (FORMAT.md §12.4); one that did would read as the null object.
                let holds: Bool
                if case let .link(key)? = element {
                    holds = try reads.withRecord(target, key: key) { (fields) throws(DatabaseError) in
                        guard var fields else { return try condition.matchesNull(target, reads) }
                        return try condition.matches(&fields, reads)
                    }
                } else {
                    holds = try condition.matchesNull(target, reads)
                }
                if holds, quantifier == .any { return true }
                if !holds, quantifier == .all { return false }
            }
            return quantifier == .all
        }
    }

    /// A text match on a stored value: false for null (and for a value
    /// that is not a string).
    static func matchesText(_ stored: FieldValue?, _ match: TextMatch, _ pattern: String, caseInsensitive: Bool) -> Bool {
        guard case let .string(text)? = stored else { return false }
        var options: String.CompareOptions = caseInsensitive ? [.caseInsensitive] : [.literal]
        switch match {
        case .contains: break
        case .beginsWith: options.insert(.anchored)
        case .endsWith: options.formUnion([.anchored, .backwards])
        }
        return pattern.isEmpty || text.range(of: pattern, options: options) != nil
    }

    /// The condition on the null object (what a null link reaches).
    func matchesNull(_ schema: ObjectSchema, _ reads: QueryReads) throws(DatabaseError) -> Bool {
        var fields = RecordFields(null: schema)
        return try matches(&fields, reads)
    }

    /// Null equals only null and has no order (every `<` with it is false).
    static func compare(_ stored: FieldValue?, _ comparison: Comparison, _ value: FieldValue?) -> Bool {
        switch comparison {
        case .equal, .notEqual:
            let equal: Bool
            switch (stored, value) {
            case (nil, nil): equal = true
            case let (a?, b?): equal = order(a, b) == 0
            default: equal = false
            }
            return equal == (comparison == .equal)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let stored, let value, let order = order(stored, value) else { return false }
            switch comparison {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
    }

    /// The order of two stored values of one type: numbers by value,
    /// strings by their UTF-8 bytes (code point order, as the index keys
    /// sort, so an index lookup and a scan agree), bytes lexicographically;
    /// nil for values that do not compare (NaN, different types).
    static func order(_ a: FieldValue, _ b: FieldValue) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int? {
            if x < y { return -1 }
            if x > y { return 1 }
            return x == y ? 0 : nil
        }
        func bytes<C: Sequence>(_ x: C, _ y: C) -> Int where C.Element == UInt8 {
            if x.elementsEqual(y) { return 0 }
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        }
        switch (a, b) {
        case let (.int(x), .int(y)): return sign(x, y)
        case let (.double(x), .double(y)), let (.date(x), .date(y)): return sign(x, y)
        case let (.float(x), .float(y)): return sign(x, y)
        case let (.bool(x), .bool(y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case let (.string(x), .string(y)): return bytes(x.utf8, y.utf8)
        case let (.data(x), .data(y)), let (.uuid(x), .uuid(y)), let (.link(x), .link(y)): return bytes(x, y)
        case let (.decimal(x), .decimal(y)): return sign(Decimal(x), Decimal(y))
        default: return nil
        }
    }
}

/// One record's property values, decoded as a query asks for them; or the
/// null object's (a null link's target), whose values are all null. The
/// last two values decoded are kept inline (a range reads its property
/// twice, a sort key after the condition): a per-record cache array was
/// an allocation for every record a scan visits.
struct RecordFields {
    let bytes: UnsafeRawBufferPointer
    let schema: ObjectSchema
    let isNull: Bool
    /// The object's key, for conditions on its lists: given, or copied from
    /// the scan's key bytes (valid while these fields are used) only when
    /// asked for (most conditions never ask).
    private var knownKey: [UInt8]?
    private let keyBytes: UnsafeRawBufferPointer?
    private var recent: (index: Int, value: FieldValue?)?
    private var older: (index: Int, value: FieldValue?)?

    init(_ bytes: UnsafeRawBufferPointer, _ schema: ObjectSchema, key: [UInt8]? = nil, keyBytes: UnsafeRawBufferPointer? = nil) {
        self.bytes = bytes
        self.schema = schema
        isNull = false
        knownKey = key
        self.keyBytes = keyBytes
    }

    /// One list element, read as property 0 (`Condition.values`).
    init(value: FieldValue?, _ schema: ObjectSchema) {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        self.schema = schema
        isNull = false
        knownKey = nil
        keyBytes = nil
        recent = (0, value)
    }

    init(null schema: ObjectSchema) {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        self.schema = schema
        isNull = true
        knownKey = nil
        keyBytes = nil
    }

    /// The property's value; a property without a field reads as it does
    /// on an object (null or the type's default).
    mutating func value(_ index: Int) throws(DatabaseError) -> FieldValue? {
        if isNull { return nil }
        if let recent, recent.index == index { return recent.value }
        if let older, older.index == index { return older.value }
        let property = schema.properties[index]
        let bytes = bytes
        let value = try engine { () throws(FirnError) in try ObjectRecord.value(index, as: property.type, in: bytes) } ?? property.absentValue
        older = recent
        recent = (index, value)
        return value
    }

    /// The object's key; nil for the null object.
    mutating func key() throws(DatabaseError) -> [UInt8]? {
        if isNull { return nil }
        if let knownKey { return knownKey }
        guard let keyBytes else { return nil }
        knownKey = Array(keyBytes)
        return knownKey
    }
}

/// What conditions through links and lists read, from the version the
/// query reads: linked records by key, and list elements, through one
/// cursor per list tree (a scan asks for one owner's list after another).
final class QueryReads {
    let source: any ObjectSource
    private var listCursors: [String: Cursor?] = [:]
    /// Each `LinkingTally` met and its tallies, found once per scan (the
    /// tally is held, so its identity is not reused while this lives).
    private var linkingTallies: [ObjectIdentifier: (tally: LinkingTally, counts: [[UInt8]: Int])] = [:]

    init(_ source: any ObjectSource) { self.source = source }

    /// `body` with the fields of the object of `schema` under `key`, or nil
    /// when there is none (deleted).
    func withRecord<R>(_ schema: ObjectSchema, key: [UInt8], _ body: (RecordFields?) throws(DatabaseError) -> R) throws(DatabaseError) -> R {
        guard let record = try source.value(in: schema.treeName, key: key) else { return try body(nil) }
        return try record.withBytes { (bytes) throws(DatabaseError) in try body(RecordFields(bytes, schema, key: key)) }
    }

    /// How many origin objects satisfying `tally`'s condition link to the
    /// object `key`; the first call walks the origin type, the rest look up.
    func linkingCount(_ tally: LinkingTally, _ key: [UInt8]) throws(DatabaseError) -> Int {
        if let known = linkingTallies[ObjectIdentifier(tally)] { return known.counts[key] ?? 0 }
        let counts = try tally.tallies(source, self)
        linkingTallies[ObjectIdentifier(tally)] = (tally, counts)
        return counts[key] ?? 0
    }

    /// How many elements list property `index` of the object `owner` has:
    /// one seek past its run (positions are exactly 0 ..< count, FORMAT.md §12.4).
    func listCount(_ schema: ObjectSchema, _ index: Int, owner: [UInt8]) throws(DatabaseError) -> Int {
        guard let cursor = try listCursor(schema, index) else { return 0 }
        let prefix = ListKey.prefix(owner)
        return try engine { () throws(FirnError) -> Int in try cursor.listCount(prefix: prefix) }
    }

    /// The cursor over list property `index`'s tree, made once per tree.
    private func listCursor(_ schema: ObjectSchema, _ index: Int) throws(DatabaseError) -> Cursor? {
        let name = schema.listTreeName(schema.properties[index])
        if let known = listCursors[name] { return known }
        let cursor = try source.cursor(in: name)
        listCursors[name] = .some(cursor)
        return cursor
    }

    /// The value at `key` of map property `index` of the object `owner` of
    /// `schema`, nil for no such key: a walk of the owner's entries until
    /// the key, which they hold in order (FORMAT.md §12.4).
    func mapValue(_ schema: ObjectSchema, _ index: Int, owner: [UInt8], key: String) throws(DatabaseError) -> FieldValue? {
        let property = schema.properties[index]
        guard let cursor = try listCursor(schema, index) else { return nil }
        let prefix = ListKey.prefix(owner)
        let wanted = Array(key.utf8)
        return try engine { () throws(FirnError) -> FieldValue? in
            try cursor.seek(prefix)
            while cursor.isValid, try cursor.withKey({ $0.starts(with: prefix) }) == true {
                guard let bytes = try cursor.value else { return nil }
                let found = try bytes.withUnsafeBytes { buffer in
                    Result { () throws(FirnError) -> (order: Int, value: FieldValue?) in
                        let (entryKey, element) = try MapEntry.split(buffer)
                        if entryKey.elementsEqual(wanted) { return (0, try ListElement.decode(element, as: property.type)) }
                        return (entryKey.lexicographicallyPrecedes(wanted) ? -1 : 1, nil)
                    }
                }.get()
                if found.order == 0 { return found.value }
                if found.order > 0 { return nil }   // past where the key would be
                try cursor.next()
            }
            return nil
        }
    }

    /// The keys of map property `index` of the object `owner` of `schema`, in order.
    func mapKeys(_ schema: ObjectSchema, _ index: Int, owner: [UInt8]) throws(DatabaseError) -> [String] {
        guard let cursor = try listCursor(schema, index) else { return [] }
        let prefix = ListKey.prefix(owner)
        return try engine { () throws(FirnError) -> [String] in
            var keys: [String] = []
            try cursor.seek(prefix)
            while cursor.isValid, try cursor.withKey({ $0.starts(with: prefix) }) == true {
                if let key = try cursor.withInlineValue({ bytes in Result { () throws(FirnError) in try MapEntry.key(bytes) } }) {
                    keys.append(try key.get())
                } else if let value = try cursor.value {
                    keys.append(try value.withUnsafeBytes { bytes in Result { () throws(FirnError) in try MapEntry.key(bytes) } }.get())
                }
                try cursor.next()
            }
            return keys
        }
    }

    /// The elements of list property `index` of the object `owner` of `schema`.
    func listElements(_ schema: ObjectSchema, _ index: Int, owner: [UInt8]) throws(DatabaseError) -> [FieldValue?] {
        let property = schema.properties[index]
        guard let cursor = try listCursor(schema, index) else { return [] }
        let prefix = ListKey.prefix(owner)
        return try engine { () throws(FirnError) -> [FieldValue?] in
            var elements: [FieldValue?] = []
            try cursor.seek(prefix)
            while cursor.isValid, try cursor.withKey({ $0.starts(with: prefix) }) == true {
                if let element = try cursor.withInlineValue({ bytes in Result { () throws(FirnError) in try ListElement.decode(bytes, of: property) } }) {
                    elements.append(try element.get())
                } else if let value = try cursor.value {
                    elements.append(try value.withUnsafeBytes { bytes in Result { () throws(FirnError) in try ListElement.decode(bytes, of: property) } }.get())
                }
                try cursor.next()
            }
            return elements
        }
    }
}
