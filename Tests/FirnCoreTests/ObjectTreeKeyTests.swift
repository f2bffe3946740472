@testable import FirnCore
import Foundation
import Testing

/// The keys and values of list trees and index trees (FORMAT.md §12.4,
/// §12.5), and the schema of links and lists (§12.1).
@Suite struct ObjectTreeKeyTests {
    /// `body` over `bytes`, its typed error kept.
    static func with<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FirnError) -> T) throws(FirnError) -> T {
        try bytes.withUnsafeBytes { b in Result { () throws(FirnError) in try body(b) } }.get()
    }

    static func isCorrupt(_ body: () throws -> Void) -> Bool {
        do { try body(); return false } catch { if case .corrupt? = error as? FirnError { return true }; return false }
    }

    @Test func listKeysGroupOneOwnerInPositionOrder() throws {
        let a = ListKey.key(Array("ab".utf8), 1), b = ListKey.key(Array("abc".utf8), 0)
        #expect(a == [0, 2, 97, 98, 0, 0, 0, 1])
        // Owner "ab"'s run does not interleave with owner "abc"'s.
        #expect(!b.starts(with: ListKey.prefix(Array("ab".utf8))))
        #expect(ListKey.key([7], 2).lexicographicallyPrecedes(ListKey.key([7], 256)))
        let decoded = try Self.with(a) { (buffer) throws(FirnError) in try ListKey.decode(buffer) }
        #expect(Array(decoded.owner) == Array("ab".utf8) && decoded.position == 1)
        for bad: [UInt8] in [[0, 2, 97, 0, 0, 0, 1], [0], [0, 0, 0, 0, 0, 1, 9]] {
            #expect(Self.isCorrupt {
                try Self.with(bad) { (b) throws(FirnError) in _ = try ListKey.decode(b) }
            }, "\(bad)")
        }
    }

    @Test func listElementsCarryTheirTypeOrNull() throws {
        #expect(ListElement.encode(.int(5), as: .int8) == [3, 5])
        #expect(ListElement.encode(nil, as: .string) == [0])
        #expect(ListElement.encode(.link([1, 2]), as: .object) == [13, 1, 2])
        let five = try Self.with([3, 5]) { (b) throws(FirnError) in try ListElement.decode(b, as: .int8) }
        let null = try Self.with([0]) { (b) throws(FirnError) in try ListElement.decode(b, as: .int8) }
        #expect(five == .int(5) && null == nil)
        for bad: [UInt8] in [[], [0, 1], [2, 5], [3, 5, 6]] {
            #expect(Self.isCorrupt {
                try Self.with(bad) { (b) throws(FirnError) in _ = try ListElement.decode(b, as: .int8) }
            }, "\(bad)")
        }
    }

    /// Index keys sort as their values do, whatever follows them.
    @Test func indexKeysPreserveValueOrder() throws {
        func sorted(_ values: [FieldValue?], _ type: PropertyType) -> Bool {
            let keys = values.map { IndexKey.key($0, as: type, objectKey: [0xFF])! }
            return zip(keys, keys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }
        }
        #expect(sorted([nil, .int(-5), .int(0), .int(3)], .int))
        #expect(sorted([nil, .int(-5), .int(0), .int(3)], .int16))
        #expect(sorted([.date(-10.5), .date(-1), .date(0), .date(0.25), .date(1e9)], .date))
        #expect(sorted([.bool(false), .bool(true)], .bool))
        #expect(sorted([.string(""), .string("a"), .string("a\u{0}"), .string("a\u{0}b"), .string("ab"), .string("b")], .string))
        #expect(IndexKey.prefix(.date(-0.0), as: .date) == IndexKey.prefix(.date(0), as: .date))
        #expect(IndexKey.prefix(.string("x"), as: .int) == nil)
    }

    @Test func indexKeysSayWhereTheObjectKeyStarts() throws {
        for (value, type) in [(FieldValue.int(7), PropertyType.int32), (.string("a\u{0}b"), .string), (.bool(true), .bool),
                              (.uuid([UInt8](repeating: 9, count: 16)), .uuid), (.date(3), .date)] {
            let prefix = try #require(IndexKey.prefix(value, as: type))
            let key = prefix + [1, 2, 3]
            let length = try Self.with(key) { (b) throws(FirnError) in try IndexKey.valueLength(b, as: type) }
            #expect(length == prefix.count)
        }
        for (bad, type): ([UInt8], PropertyType) in [([2], .int), ([1, 0, 0], .int), ([1, 97, 0, 7], .string), ([1, 97], .string),
                                                     ([1, 2], .bool), ([1, 0], .double)] {
            #expect(Self.isCorrupt {
                try Self.with(bad) { (b) throws(FirnError) in _ = try IndexKey.valueLength(b, as: type) }
            }, "\(bad)")
        }
    }

    @Test func longStringsAreCutAtAScalarBoundary() throws {
        let long = String(repeating: "é", count: 300)  // 2 bytes each
        let prefix = try #require(IndexKey.prefix(.string(long), as: .string))
        #expect(prefix.count == 1 + IndexKey.stringBudget + 2 && prefix.suffix(2) == [0, 2])
        #expect(String(decoding: prefix.dropFirst().dropLast(2), as: UTF8.self) == String(repeating: "é", count: 128))
        #expect(IndexKey.prefix(.string("short"), as: .string)?.suffix(2) == [0, 1])
    }

    @Test func linksAndListsRoundTripThroughTheSchemaRecord() throws {
        let schema = try ObjectSchema(name: "Person", properties: [
            PropertySchema(name: "id", type: .uuid, isPrimaryKey: true),
            PropertySchema(name: "city", type: .string, isOptional: true, isIndexed: true),
            PropertySchema(name: "dogs", type: .object, isList: true, objectType: "Dog"),
            PropertySchema(name: "tags", type: .string, isOptional: true, isList: true),
            PropertySchema(name: "friend", type: .object, isOptional: true, objectType: "Person"),
        ])
        let bytes = schema.encode()
        let decoded = try Self.with(bytes) { (b) throws(FirnError) in try ObjectSchema.decode(name: "Person", b) }
        #expect(decoded == schema)
        #expect(schema.listTreeName(schema.properties[2]) == "list.Person.dogs")
        #expect(schema.indexTreeName(schema.properties[1]) == "idx.Person.city")
        #expect(schema.properties.map(\.description) == [
            "id: UUID (primary key)", "city: String? (indexed)", "dogs: List<Dog>", "tags: List<String?>", "friend: Person?",
        ])
    }
}
