import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// `Map` properties in hand-made files (docs/FORMAT.md §12.1, §12.4): a map
/// is a list of (key, value) entries whose UTF-8 keys strictly increase; a
/// repeated or out-of-order key, a key that is not UTF-8, the map flag
/// without the list flag and a map of required objects are defects
/// `dump --objects` and `verify` report.
@Suite struct MapDefectTests {
    typealias Hostile = ObjectHostileInputTests

    static let schema: [PropertySchema] = [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "pals", type: .object, isOptional: true, isList: true, objectType: "Pet", isMap: true),
        PropertySchema(name: "scores", type: .int, isList: true, isMap: true),
    ]

    static func entry(_ position: Int, _ key: [UInt8], _ score: Int64) -> (String, [UInt8], [UInt8]) {
        var value: [UInt8] = []
        value.appendVarint(UInt64(key.count))
        value += key
        value += ListElement.encode(.int(score), as: .int) ?? []
        return ("list.Pet.scores", ListKey.key(Hostile.petKey(1), position), value)
    }

    static func file(_ dir: TemporaryDirectory, _ entries: [(String, [UInt8], [UInt8])], name: String) throws -> String {
        try Hostile.file(dir, [try Hostile.schema(Self.schema), ("obj.Pet", Hostile.petKey(1), Hostile.record(1, "Rex"))] + entries, name: name)
    }

    @Test func aMapDumpsAsItsEntriesAndVerifies() throws {
        let dir = try TemporaryDirectory()
        let pal = ("list.Pet.pals", ListKey.key(Hostile.petKey(1), 0),
                   MapEntry.encode(key: "self", element: ListElement.encode(.link(Hostile.petKey(1)), as: .object) ?? []))
        let good = try Self.file(dir, [Self.entry(0, Array("a".utf8), 1), Self.entry(1, Array("b".utf8), 2), pal], name: "good.firn")
        let dump = try FirnRun.run(["dump", good, "--objects"])
        #expect(dump.status == 0 && dump.stdout.contains("scores: [\"a\": 1, \"b\": 2]"), "\(dump.stdout)\(dump.stderr)")
        #expect(dump.stdout.contains("pals: [\"self\": Pet[1]]"), "\(dump.stdout)")
        let json = try FirnRun.run(["dump", good, "--objects", "--json"])
        #expect(json.stdout.contains("\"scores\":{\"a\":1,\"b\":2}"), "\(json.stdout)")
        let verify = try FirnRun.run(["verify", good])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func aRepeatedOrOutOfOrderKeyIsADefect() throws {
        let dir = try TemporaryDirectory()
        let repeated = try Self.file(dir, [Self.entry(0, Array("a".utf8), 1), Self.entry(1, Array("a".utf8), 2)], name: "repeated.firn")
        try Hostile.expectDefect(repeated, says: "a key its map already has")
        let unsorted = try Self.file(dir, [Self.entry(0, Array("b".utf8), 1), Self.entry(1, Array("a".utf8), 2)], name: "unsorted.firn")
        try Hostile.expectDefect(unsorted, says: "not after the key before it")
    }

    @Test func aKeyThatIsNotUTF8OrDoesNotFitIsADefect() throws {
        let dir = try TemporaryDirectory()
        let notUTF8 = try Self.file(dir, [Self.entry(0, [0xFF, 0xFE], 1)], name: "utf8.firn")
        try Hostile.expectDefect(notUTF8, says: "is not UTF-8")
        let long = ("list.Pet.scores", ListKey.key(Hostile.petKey(1), 0), [UInt8]([0x09, 0x61]))
        try Hostile.expectDefect(try Self.file(dir, [long], name: "long.firn"), says: "map key")
    }

    @Test func theMapFlagWithoutTheListFlagOrOnRequiredObjectsIsADefect() throws {
        let dir = try TemporaryDirectory()
        var bytes = try Hostile.schema(Self.schema).2
        // kind, count, "id" (1+2), type, flags, "name" (1+4), type, flags, "pals" (1+4), type, then its flags.
        #expect(bytes[13] == 0 && bytes[20] == 41)
        var flagOnly = bytes
        flagOnly[13] = 32
        try Hostile.expectDefect(try Hostile.file(dir, [(ObjectSchema.schemaTreeName, Array("Pet".utf8), flagOnly)], name: "flag.firn"),
                                 says: "property name has the map flag without the list flag")
        bytes[20] = 40
        try Hostile.expectDefect(try Hostile.file(dir, [(ObjectSchema.schemaTreeName, Array("Pet".utf8), bytes)], name: "required.firn"),
                                 says: "is a map of objects and must be optional")
    }
}
