import Testing
@testable import FirnCore

/// The schema record, the object record and the object key encodings of
/// docs/FORMAT.md §12: round trips, and hostile bytes that must fail with
/// `.corrupt` (never crash, never read past the end).
@Suite struct ObjectRecordTests {
    static let dogSchema = try! ObjectSchema(name: "Dog", properties: [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "age", type: .int8),
        PropertySchema(name: "weight", type: .double, isOptional: true),
        PropertySchema(name: "city", type: .string, isOptional: true, isIndexed: true),
    ])

    static let sampleFields: [(tag: Int, type: PropertyType, value: FieldValue?)] = [
        (0, .int, .int(-7)), (1, .string, .string("Rex ü")), (2, .int8, .int(-3)),
        (3, .double, nil), (4, .string, .string("")), (5, .uuid, .uuid(Array(0..<16))),
        (6, .date, .date(-12.5)), (7, .float, .float(1.5)), (8, .bool, .bool(true)),
        (9, .data, .data([0, 255])), (10, .int16, .int(-300)), (11, .int32, .int(70000)),
        (12, .int64, .int(.min)),
    ]

    static func isCorrupt(_ body: () throws -> Void) -> Bool {
        do { try body(); return false } catch { if case .corrupt? = error as? FirnError { return true }; return false }
    }

    @Test func schemaRoundTrips() throws {
        let bytes = Self.dogSchema.encode()
        let decoded = try bytes.withUnsafeBytes { buffer in try ObjectSchema.decode(name: "Dog", buffer) }
        #expect(decoded == Self.dogSchema)
        #expect(decoded.primaryKeyIndex == 0)
        #expect(decoded.treeName == "obj.Dog")
    }

    @Test func schemaDifferenceNamesTheProperty() throws {
        var properties = Self.dogSchema.properties
        properties[2] = PropertySchema(name: "age", type: .string)
        let changed = try ObjectSchema(name: "Dog", properties: properties)
        #expect(changed.difference(from: Self.dogSchema)?.property == "age")
        #expect(Self.dogSchema.difference(from: Self.dogSchema) == nil)
    }

    @Test func schemaRulesAreChecked() {
        #expect(Self.isCorrupt { _ = try ObjectSchema(name: "T", properties: [
            PropertySchema(name: "a", type: .int), PropertySchema(name: "a", type: .int)]) })
        #expect(Self.isCorrupt { _ = try ObjectSchema(name: "T", properties: [
            PropertySchema(name: "a", type: .double, isPrimaryKey: true)]) })
        #expect(Self.isCorrupt { _ = try ObjectSchema(name: "T", properties: [
            PropertySchema(name: "a", type: .int, isPrimaryKey: true), PropertySchema(name: "b", type: .string, isPrimaryKey: true)]) })
    }

    @Test func recordRoundTripsEveryType() throws {
        let bytes = ObjectRecord.encode(Self.sampleFields)
        let decoded = try bytes.withUnsafeBytes { buffer in try ObjectRecord.decodeAll(buffer) }
        #expect(decoded.count == Self.sampleFields.count)
        for (field, expected) in zip(decoded, Self.sampleFields) {
            #expect(field.tag == expected.tag)
            #expect(field.value == expected.value)
        }
        let name = try bytes.withUnsafeBytes { buffer in try ObjectRecord.value(1, as: .string, in: buffer) }
        #expect(name == .string("Rex ü"))
        let missing = try bytes.withUnsafeBytes { buffer in try ObjectRecord.value(40, as: .int, in: buffer) }
        #expect(missing == nil)
    }

    @Test func aFieldOfAnotherTypeIsCorrupt() {
        let bytes = ObjectRecord.encode(Self.sampleFields)
        #expect(Self.isCorrupt { try bytes.withUnsafeBytes { buffer in _ = try ObjectRecord.value(1, as: .int, in: buffer) } })
    }

    @Test func everyTruncationIsCorrupt() {
        let bytes = ObjectRecord.encode(Self.sampleFields)
        for end in 0..<bytes.count {
            let prefix = Array(bytes[0..<end])
            #expect(Self.isCorrupt { try prefix.withUnsafeBytes { buffer in _ = try ObjectRecord.decodeAll(buffer) } })
        }
        let schema = Self.dogSchema.encode()
        for end in 0..<schema.count {
            let prefix = Array(schema[0..<end])
            #expect(Self.isCorrupt { try prefix.withUnsafeBytes { buffer in _ = try ObjectSchema.decode(name: "Dog", buffer) } })
        }
    }

    @Test func hostileCountsAndLengthsAreCorrupt() {
        let cases: [[UInt8]] = [
            [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],                              // huge field count
            [1, 1, 0, 9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], // length past 64 bits
            [1, 1, 0, 9, 200, 1, 65],                                        // length past the end
            [1, 2, 1, 2, 8, 0, 2, 8, 0],                                     // tags not ascending
            [1, 1, 0, 77, 0],                                                // unknown type
            [1, 1, 0, 1, 1, 2],                                              // Bool 2
            [1, 1, 0, 2, 3, 1, 2, 3],                                        // Int of 3 bytes
            [1, 1, 0, 9, 2, 0xC0, 0x80],                                     // overlong UTF-8
            [1, 1, 0, 0, 1, 0],                                              // null with bytes
            [2, 0],                                                          // unknown format
            [1, 0, 0],                                                       // trailing bytes
        ]
        for bytes in cases {
            #expect(Self.isCorrupt { try bytes.withUnsafeBytes { buffer in _ = try ObjectRecord.decodeAll(buffer) } }, "\(bytes)")
        }
        let schemas: [[UInt8]] = [
            [1, 0xFF, 0x7F], [1, 1, 0, 2, 0], [1, 1, 1, 65, 99, 0], [1, 1, 1, 65, 2, 16], [1, 1, 5, 65, 2, 0],
            [1, 1, 1, 65, 13, 1],              // a link without its target name
            [1, 1, 1, 65, 13, 1, 0],           // a link to a type with an empty name
            [1, 1, 1, 65, 13, 0, 1, 66],       // a link that is not optional
            [1, 1, 1, 65, 13, 9, 1, 66],       // a list of optional objects
            [1, 1, 1, 65, 7, 4],               // an indexed Double
            [1, 1, 1, 65, 2, 12],              // an indexed list
            [1, 1, 1, 65, 2, 10],              // a list as the primary key
            [1, 1, 3, 65, 46, 66, 2, 0],       // a name with a dot ("A.B")
        ]
        for bytes in schemas {
            #expect(Self.isCorrupt { try bytes.withUnsafeBytes { buffer in _ = try ObjectSchema.decode(name: "T", buffer) } }, "\(bytes)")
        }
    }

    @Test func randomBytesNeverCrash() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let valid = ObjectRecord.encode(Self.sampleFields)
        for _ in 0..<20_000 {
            var bytes = valid
            // Flip a few bytes of a valid record, or make up a short one.
            if next() % 4 == 0 {
                bytes = (0..<Int(next() % 24)).map { _ in UInt8(truncatingIfNeeded: next()) }
                bytes.insert(1, at: 0)
            } else {
                for _ in 0...Int(next() % 3) { bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next()) }
            }
            _ = try? bytes.withUnsafeBytes { buffer in try ObjectRecord.decodeAll(buffer) }
            _ = try? bytes.withUnsafeBytes { buffer in try ObjectSchema.decode(name: "T", buffer) }
        }
    }

    @Test func keysSortLikeTheirValues() throws {
        let ints: [Int64] = [.min, -300, -1, 0, 1, 255, 256, .max]
        let keys = ints.compactMap { ObjectKey.encode(.int($0), as: .int) }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        for (value, key) in zip(ints, keys) {
            #expect(try key.withUnsafeBytes { buffer in try ObjectKey.decode(buffer, as: .int) } == .int(value))
        }
        let small: [Int64] = [-128, -1, 0, 127]
        let smallKeys = small.compactMap { ObjectKey.encode(.int($0), as: .int8) }
        #expect(smallKeys.count == 4 && smallKeys == smallKeys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(ObjectKey.encode(.int(300), as: .int8) == nil)
        #expect(ObjectKey.generated(1) == [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(Self.isCorrupt { try [1, 2].withUnsafeBytes { buffer in _ = try ObjectKey.decode(buffer, as: .int) } })
        #expect(ObjectKey.uuidString(Array(0..<16)) == "00010203-0405-0607-0809-0A0B0C0D0E0F")
    }
}
