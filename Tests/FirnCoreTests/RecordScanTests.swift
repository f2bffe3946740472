import FirnTestSupport
import Testing
@testable import FirnCore

/// What a query's scan reads records with: `ObjectRecord.fields` (several
/// fields in one walk, a quick walk on the raw bytes with the checked walk
/// behind it) must find what `field(_:in:)` finds, and fail where it fails
/// with the same defect; `Cursor.forEachEntry` must visit what a
/// `first`/`next` walk visits, overflow values and merged log versions
/// included.
@Suite struct RecordScanTests {
    /// What a read found: each tag's field described, or the error.
    enum Outcome: Equatable {
        case success([Int: String])
        case failure(String)
    }

    /// Every field the walk reads, by tag, as `field(_:in:)` finds it one at
    /// a time; or the error each throws.
    static func bothWalks(_ record: [UInt8], _ tags: [Int]) -> (one: Outcome, all: Outcome) {
        func describe(_ field: ObjectRecord.Field?) -> String {
            guard let field else { return "absent" }
            return "\(field.tag) \(field.type.map { "\($0)" } ?? "null") \(Array(field.bytes))"
        }
        let one = record.withUnsafeBytes { bytes -> Outcome in
            do {
                var found: [Int: String] = [:]
                for tag in tags {
                    // The checked walk is the reference; `field` (its quick
                    // walk first) must give the same field or the same error.
                    let checked = Result { try ObjectRecord.checkedField(tag, in: bytes) }.map(describe)
                    let quick = Result { try ObjectRecord.field(tag, in: bytes) }.map(describe)
                    guard "\(checked)" == "\(quick)" else { return .failure("field and checkedField differ: \(quick), \(checked)") }
                    found[tag] = try checked.get()
                }
                return .success(found)
            } catch { return .failure("\(error)") }
        }
        let all = record.withUnsafeBytes { bytes -> Outcome in
            let out = UnsafeMutableBufferPointer<ObjectRecord.Field?>.allocate(capacity: max(tags.count, 1))
            defer { out.deallocate() }
            do {
                try tags.withUnsafeBufferPointer { try ObjectRecord.fields($0, in: bytes, into: out) }
                var found: [Int: String] = [:]
                for (i, tag) in tags.enumerated() { found[tag] = describe(out[i]) }
                return .success(found)
            } catch { return .failure("\(error)") }
        }
        return (one, all)
    }

    static let record = ObjectRecord.encode([
        (0, .int, .int(7)), (1, .string, .string(String(repeating: "x", count: 300))), (2, .int8, nil),
        (3, .int, .int(-5)), (200, .double, .double(2.5)), (70_000, .bool, .bool(true)),
    ])

    @Test func severalFieldsInOneWalkAgreeWithOneAtATime() {
        let tagSets: [[Int]] = [[0], [3], [0, 3], [1, 2, 3], [2], [4], [5, 6], [199, 200, 201], [70_000], [0, 1, 2, 3, 200, 70_000],
                                [70_001], [3, 70_000, 80_000]]
        for tags in tagSets {
            let (one, all) = Self.bothWalks(Self.record, tags)
            #expect(one == all, "tags \(tags)")
            if case .failure = all { Issue.record("a valid record failed for tags \(tags)") }
        }
    }

    /// Every single byte of a valid record changed to a few values, and
    /// every truncation: the one-walk read gives the same fields or fails
    /// with the same defect as the field-by-field read (which names it).
    @Test func damagedRecordsFailAsTheCheckedWalkFails() {
        let tagSets: [[Int]] = [[3], [0, 3], [200], [70_000], [1, 200]]
        var damaged: [[UInt8]] = []
        for i in Self.record.indices {
            for value: UInt8 in [0, 1, 0x7F, 0x80, 0xFF, 14] {
                var copy = Self.record
                copy[i] = value
                damaged.append(copy)
            }
        }
        for length in 0..<Self.record.count { damaged.append(Array(Self.record.prefix(length))) }
        damaged.append(Self.record + [0])
        for record in damaged {
            for tags in tagSets {
                let (one, all) = Self.bothWalks(record, tags)
                // The one-at-a-time read stops at each tag; the one walk
                // reads to the last tag asked for, so it may fail where
                // the earlier tags' reads did not: compare at the last tag.
                let last = tags.last ?? 0
                let lastOnly = Self.bothWalks(record, [last]).one
                switch (all, one) {
                case let (.success(a), .success(b)): #expect(a == b)
                case let (.failure(a), .failure(b)): #expect(a == b || lastOnly == .failure(a))
                case let (.failure(a), .success):
                    // Only a defect past an earlier tag and before the last.
                    #expect(lastOnly == .failure(a), "\(record) \(tags): \(a)")
                case let (.success, .failure(b)): Issue.record("\(record) \(tags): one walk passed, field read failed: \(b)")
                }
            }
        }
    }

    /// `quickInteger` (what `IntegerScan` decides with) gives a value only
    /// where the checked read gives the same `Int` without a defect, on
    /// the valid record and on every damaged copy of it.
    @Test func quickIntegersAreWhatTheCheckedReadFinds() {
        /// The checked read's `Int`, nil for a defect, no field or null.
        func checked(_ record: [UInt8], _ tag: Int) -> Int64? {
            record.withUnsafeBytes { bytes in
                do {
                    guard let field = try ObjectRecord.checkedField(tag, in: bytes) else { return nil }
                    return try ObjectRecord.integer(of: field, as: .int)
                } catch { return nil }
            }
        }
        let tags = [0, 1, 2, 3, 4, 200, 70_000]
        Self.record.withUnsafeBytes { bytes in
            #expect(tags.map { ObjectRecord.quickInteger($0, in: bytes) } == [7, nil, nil, -5, nil, nil, nil])
        }
        var damaged: [[UInt8]] = []
        for i in Self.record.indices {
            for value: UInt8 in [0, 1, 0x7F, 0x80, 0xFF, 14, 8, 3] {
                var copy = Self.record
                copy[i] = value
                damaged.append(copy)
            }
        }
        for length in 0..<Self.record.count { damaged.append(Array(Self.record.prefix(length))) }
        var decided = 0
        for record in damaged {
            for tag in tags {
                guard let quick = record.withUnsafeBytes({ ObjectRecord.quickInteger(tag, in: $0) }) else { continue }
                decided += 1
                #expect(checked(record, tag) == quick, "\(record) tag \(tag): quick \(quick)")
            }
        }
        #expect(decided > 0)
    }

    /// A scan deciding an interval of an `Int` field in its leaf loop
    /// (`IntegerScan`), tallying or not, gives the count and sum the
    /// checked read of every record gives; every record it does not decide
    /// (null, absent, another width, a damaged record) reaches the visit,
    /// where the checked read reports its defect.
    @Test(arguments: [false, true], [false, true])
    func integerScansAgreeWithTheCheckedRead(tallying: Bool, summing: Bool) throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("integers.db"))
        defer { store.close() }
        let n = 500
        try store.write { txn in
            let tree = try #require(try txn.tree("obj.T"))
            for i in 0..<n {
                let value: (PropertyType, FieldValue?)? =
                    i % 5 == 0 ? (.int, nil) : i % 11 == 0 ? nil : i % 13 == 0 ? (.int32, .int(Int64(i))) : (.int, .int(Int64(i * 7 - 900)))
                var fields: [(tag: Int, type: PropertyType, value: FieldValue?)] = [(0, .string, .string(String(repeating: "s", count: i % 40)))]
                if let value { fields.append((3, value.0, value.1)) }
                fields.append((4, .int, .int(Int64(i))))
                try tree.put(Self.key(i), ObjectRecord.encode(fields))
            }
            // Damaged: tags out of order before field 3; and a value of 7 bytes.
            try tree.put(Self.key(n), [1, 3, 2, 2, 8, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 8, 2, 0, 0, 0, 0, 0, 0, 0, 3, 2, 8, 5, 0, 0, 0, 0, 0, 0, 0])
            try tree.put(Self.key(n + 1), [1, 1, 3, 2, 7, 1, 0, 0, 0, 0, 0, 0])
        }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let tree = try #require(try snapshot.tree("obj.T"))
        let (lower, upper): (Int64, Int64) = (-500, 1_500)
        /// The checked read of one record: its value (nil: none or null), or the defect.
        func checked(_ record: UnsafeRawBufferPointer) -> Result<Int64?, FirnError> {
            Result { () throws(FirnError) -> Int64? in
                guard let field = try ObjectRecord.checkedField(3, in: record) else { return nil }
                return try ObjectRecord.integer(of: field, as: .int)
            }
        }
        func inside(_ x: Int64) -> Bool { x >= lower && x <= upper }
        var expected = (count: 0, sum: 0, defects: [[UInt8]]())
        var outside = 0
        let stepper = tree.cursor()
        try stepper.first()
        while stepper.isValid, let key = try stepper.key, let value = try stepper.value {
            switch value.withUnsafeBytes(checked) {
            case let .success(x?) where inside(x): expected.count += 1; expected.sum += Int(x)
            case .success(_?): outside += 1
            case .success(nil): break
            case .failure: expected.defects.append(key)
            }
            try stepper.next()
        }
        #expect(expected.defects.count == n / 13 - n / 65 - n / 143 + n / 715 + 2)

        var found = (count: 0, sum: 0, defects: [[UInt8]]())
        var scan = IntegerScan(filter: (3, lower, upper), tallies: tallying, summing: summing ? 3 : nil)
        var visited = 0
        let cursor = tree.cursor()
        try cursor.first()
        try withUnsafeMutablePointer(to: &scan) { scan in
            try cursor.forEachEntry(deciding: scan) { key, value, _ in
                visited += 1
                switch checked(value) {
                case let .success(x?) where inside(x): found.count += 1; found.sum += Int(x)
                case .success: break
                case .failure: found.defects.append(Array(key))
                }
                return true
            }
        }
        #expect(found.count + scan.count == expected.count)
        // Counting alone, the tallied records' values are not added.
        if !tallying || summing { #expect(found.sum + scan.sum == expected.sum) }
        #expect(found.defects == expected.defects)
        // The leaf loop decided every record it could: those outside, and
        // tallying those inside; the rest (null, absent, a defect) were visited.
        #expect(visited == n + 2 - outside - (tallying ? expected.count : 0))
        #expect(tallying ? scan.count == expected.count : scan.count == 0)
    }

    @Test func typeCodesHaveNoGaps() {
        #expect(PropertyType.allCases.map(\.rawValue) == Array(1...PropertyType.maxTypeCode))
    }

    @Test func integersAreReadAsTheirTypeSays() throws {
        let record = ObjectRecord.encode([(0, .int, .int(-9)), (1, .int8, .int(-3)), (2, .int16, .int(-300)),
                                          (3, .int32, .int(70_000)), (4, .int64, .int(.min)), (5, .int, nil), (6, .string, .string("a"))])
        try record.withUnsafeBytes { bytes in
            let types: [PropertyType] = [.int, .int8, .int16, .int32, .int64]
            for (tag, type) in types.enumerated() {
                let field = try #require(try ObjectRecord.field(tag, in: bytes))
                #expect(try ObjectRecord.integer(of: field, as: type) == ObjectRecord.value(of: field, as: type).flatMap { value -> Int64? in
                    if case let .int(x) = value { return x } else { return nil }
                })
                // Another width than the field's is a defect, as `value` says.
                #expect(throws: FirnError.self) { try ObjectRecord.integer(of: field, as: type == .int ? .int32 : .int) }
            }
            let null = try #require(try ObjectRecord.field(5, in: bytes))
            #expect(try ObjectRecord.integer(of: null, as: .int) == nil)
            let text = try #require(try ObjectRecord.field(6, in: bytes))
            #expect(throws: FirnError.self) { try ObjectRecord.integer(of: text, as: .string) }
        }
    }

    /// Keys 0..<n with values of `valueLength(i)` bytes, the large ones in
    /// overflow chains; committed in `batches` transactions (several
    /// frames: a version between checkpoints is walked through the log).
    static func store(_ dir: TemporaryDirectory, count n: Int, batches: Int, valueLength: (Int) -> Int) throws -> Store {
        let store = try Store.open(dir.file("scan.db"))
        for batch in 0..<batches {
            try store.write { txn in
                let tree = try #require(try txn.tree("t"))
                for i in stride(from: batch, to: n, by: batches) {
                    try tree.put(key(i), Array(repeating: UInt8(truncatingIfNeeded: i), count: valueLength(i)))
                }
            }
        }
        return store
    }

    static func key(_ i: Int) -> [UInt8] { [UInt8(i >> 8), UInt8(i & 0xFF)] }

    @Test(arguments: [1, 7])
    func forEachEntryVisitsWhatNextVisits(batches: Int) throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir, count: 600, batches: batches) { i in i % 97 == 0 ? 9_000 : i % 13 }
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let tree = try #require(try snapshot.tree("t"))
        var stepped: [([UInt8], [UInt8])] = []
        let cursor = tree.cursor()
        try cursor.first()
        while cursor.isValid, let key = try cursor.key, let value = try cursor.value {
            stepped.append((key, value))
            try cursor.next()
        }
        var scanned: [([UInt8], [UInt8])] = []
        var stableOverflow = false
        let scan = tree.cursor()
        try scan.first()
        try scan.forEachEntry { key, value, stable in
            scanned.append((Array(key), Array(value)))
            if value.count == 9_000, stable { stableOverflow = true }
            if stable { #expect(Array(scan.retainedValue(value).bytes) == Array(value)) }
            return true
        }
        #expect(!scan.isValid)
        #expect(stepped.count == 600)
        #expect(scanned.map(\.0) == stepped.map(\.0))
        #expect(scanned.map(\.1) == stepped.map(\.1))
        // A checkpoint's overflow chain is assembled for the call: not the
        // snapshot's bytes. (A log frame holds a whole value in place.)
        if batches == 1 { #expect(!stableOverflow, "an assembled overflow value is not the snapshot's own bytes") }

        // Stopping leaves the cursor on the entry `body` stopped at.
        let stopping = tree.cursor()
        try stopping.seek(Self.key(100))
        var seen = 0
        try stopping.forEachEntry { _, _, _ in
            seen += 1
            return seen < 250
        }
        #expect(try stopping.key == Self.key(349))
    }

    @Test func forEachEntryReadsTheFieldsAskedFor() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("records.db"))
        defer { store.close() }
        try store.write { txn in
            let tree = try #require(try txn.tree("obj.T"))
            for i in 0..<300 {
                try tree.put(Self.key(i), ObjectRecord.encode([(0, .int, .int(Int64(i))), (2, .string, .string(String(repeating: "s", count: i))),
                                                              (5, .int, i % 4 == 0 ? nil : .int(Int64(-i)))]))
            }
        }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let cursor = try #require(try snapshot.tree("obj.T")).cursor()
        try cursor.first()
        let tags = [2, 5]
        let out = UnsafeMutableBufferPointer<ObjectRecord.Field?>.allocate(capacity: 2)
        defer { out.deallocate() }
        var i = 0
        var mismatches = 0
        try tags.withUnsafeBufferPointer { tags in
            try cursor.forEachEntry(reading: tags, into: out) { _, value, _ in
                let expected = Self.bothWalks(Array(value), [2, 5]).one
                let text = out[0].map { String(decoding: $0.bytes, as: UTF8.self) }
                let number = out[1].flatMap { try? ObjectRecord.integer(of: $0, as: .int) }
                if text != String(repeating: "s", count: i) || number != (i % 4 == 0 ? nil : Int64(-i)) { mismatches += 1 }
                if case .failure = expected { mismatches += 1 }
                i += 1
                return true
            }
        }
        #expect(i == 300)
        #expect(mismatches == 0)
    }

    @Test func aDamagedRecordStopsTheScanWithItsDefect() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("damaged.db"))
        defer { store.close() }
        try store.write { txn in
            let tree = try #require(try txn.tree("obj.T"))
            try tree.put([1], ObjectRecord.encode([(0, .int, .int(1)), (1, .int, .int(2))]))
            // Tags out of order: field 1 before field 0.
            try tree.put([2], [1, 2, 1, 2, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 8, 0, 0, 0, 0, 0, 0, 0, 0])
        }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let cursor = try #require(try snapshot.tree("obj.T")).cursor()
        try cursor.first()
        let out = UnsafeMutableBufferPointer<ObjectRecord.Field?>.allocate(capacity: 1)
        defer { out.deallocate() }
        var visited = 0
        do {
            // Tag 5 is past both fields: the walk reads the second one.
            try [5].withUnsafeBufferPointer { tags in
                try cursor.forEachEntry(reading: tags, into: out) { _, _, _ in
                    visited += 1
                    return true
                }
            }
            Issue.record("the damaged record was read")
        } catch let error as FirnError {
            guard case let .corrupt(_, _, _, detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("does not follow tag"))
        }
        #expect(visited == 1)
    }
}
