import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// Embedded types in hand-made files (docs/FORMAT.md §12.1, §12.7): the
/// built `firn` dumps them marked as embedded, and `verify` finds every
/// embedded object without exactly one owner, or in a ring of owners.
@Suite struct EmbeddedOwnershipTests {
    typealias Hostile = ObjectHostileInputTests

    static let addressSchema: [PropertySchema] = [
        PropertySchema(name: "city", type: .string),
        PropertySchema(name: "next", type: .object, isOptional: true, objectType: "Addr"),
    ]
    static let petSchema: [PropertySchema] = [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "home", type: .object, isOptional: true, objectType: "Addr"),
        PropertySchema(name: "past", type: .object, isList: true, objectType: "Addr"),
    ]

    static func schemas() throws -> [(String, [UInt8], [UInt8])] {
        [(ObjectSchema.schemaTreeName, Array("Addr".utf8), try ObjectSchema(name: "Addr", properties: addressSchema, isEmbedded: true).encode()),
         try Hostile.schema(petSchema)]
    }

    static func address(_ id: UInt64, _ city: String, next: UInt64? = nil) -> (String, [UInt8], [UInt8]) {
        var fields: [(tag: Int, type: PropertyType, value: FieldValue?)] = [(0, .string, .string(city))]
        if let next { fields.append((1, .object, .link(ObjectKey.generated(next)))) }
        return ("obj.Addr", ObjectKey.generated(id), ObjectRecord.encode(fields))
    }

    static func pet(_ id: Int64, home: UInt64?, past: [UInt64] = []) -> [(String, [UInt8], [UInt8])] {
        var fields: [(tag: Int, type: PropertyType, value: FieldValue?)] = [(0, .int, .int(id))]
        if let home { fields.append((1, .object, .link(ObjectKey.generated(home)))) }
        return [("obj.Pet", Hostile.petKey(id), ObjectRecord.encode(fields))] + past.enumerated().map { position, element in
            ("list.Pet.past", ListKey.key(Hostile.petKey(id), position), ListElement.encode(.link(ObjectKey.generated(element)), as: .object) ?? [])
        }
    }

    static func expectVerifyFinds(_ path: String, _ says: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let verify = try FirnRun.run(["verify", path])
        #expect(verify.status == 65 && verify.stdout.contains("object: ") && verify.stdout.contains(says),
                "\(verify.status) \(verify.stdout)\(verify.stderr)", sourceLocation: sourceLocation)
    }

    @Test func aHealthyFileDumpsTheEmbeddedTypeAndVerifies() throws {
        let dir = try TemporaryDirectory()
        let db = try Hostile.file(dir, try Self.schemas() + Self.pet(1, home: 1, past: [2, 3])
                                  + [Self.address(1, "Oslo"), Self.address(2, "Rome", next: 4), Self.address(3, "Lima"), Self.address(4, "Kyiv")])
        let dump = try FirnRun.run(["dump", db, "--objects"])
        #expect(dump.status == 0 && dump.stdout.contains("Addr: 4 objects (generated keys, embedded)"), "\(dump.stdout)\(dump.stderr)")
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func anEmbeddedObjectWithoutOwnerTwoOwnersOrInARingIsADefect() throws {
        let dir = try TemporaryDirectory()
        let orphan = try Hostile.file(dir, try Self.schemas() + Self.pet(1, home: 1) + [Self.address(1, "Oslo"), Self.address(2, "Rome")],
                                      name: "orphan.firn")
        try Self.expectVerifyFinds(orphan, "is held by no link or list element")
        let twice = try Hostile.file(dir, try Self.schemas() + Self.pet(1, home: 1) + Self.pet(2, home: nil, past: [1])
                                     + [Self.address(1, "Oslo")], name: "twice.firn")
        try Self.expectVerifyFinds(twice, "is held by both")
        let ring = try Hostile.file(dir, try Self.schemas() + Self.pet(1, home: nil)
                                    + [Self.address(1, "Oslo", next: 2), Self.address(2, "Rome", next: 1)], name: "ring.firn")
        try Self.expectVerifyFinds(ring, "in a ring of embedded objects")
    }

    @Test func anEmbeddedSchemaWithAPrimaryKeyOrAnUnknownKindIsADefect() throws {
        let dir = try TemporaryDirectory()
        var keyed = try Hostile.schema()
        keyed.2[0] = 2   // the Pet schema (with primary key id) marked embedded
        try Hostile.expectDefect(try Hostile.file(dir, [keyed], name: "keyed.firn"), says: "type Pet is embedded and has a primary key (id)")
        var unknown = try Hostile.schema()
        unknown.2[0] = 3
        try Hostile.expectDefect(try Hostile.file(dir, [unknown], name: "kind.firn"), says: "unknown schema kind 3")
    }
}
