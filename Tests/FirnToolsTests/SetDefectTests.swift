import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// `MutableSet` properties in hand-made files (docs/FORMAT.md §12.1, §12.4):
/// a set is a list of unique elements; a repeated element, or the set flag
/// without the list flag, is a defect `dump --objects` and `verify` report.
@Suite struct SetDefectTests {
    typealias Hostile = ObjectHostileInputTests

    static let schema: [PropertySchema] = [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "tags", type: .string, isList: true, isSet: true),
    ]

    static func element(_ position: Int, _ text: String) -> (String, [UInt8], [UInt8]) {
        ("list.Pet.tags", ListKey.key(Hostile.petKey(1), position), ListElement.encode(.string(text), as: .string) ?? [])
    }

    @Test func aSetDumpsAsItsElementsAndARepeatedElementIsADefect() throws {
        let dir = try TemporaryDirectory()
        let good = try Hostile.file(dir, [try Hostile.schema(Self.schema), ("obj.Pet", Hostile.petKey(1), Hostile.record(1, "Rex")),
                                          Self.element(0, "a"), Self.element(1, "b")], name: "good.firn")
        let dump = try FirnRun.run(["dump", good, "--objects"])
        #expect(dump.status == 0 && dump.stdout.contains("tags: [\"a\", \"b\"]"), "\(dump.stdout)\(dump.stderr)")
        #expect(try FirnRun.run(["verify", good]).status == 0)
        let repeated = try Hostile.file(dir, [try Hostile.schema(Self.schema), ("obj.Pet", Hostile.petKey(1), Hostile.record(1, "Rex")),
                                              Self.element(0, "a"), Self.element(1, "a")], name: "repeated.firn")
        try Hostile.expectDefect(repeated, says: "repeats an element of its set")
    }

    @Test func theSetFlagWithoutTheListFlagIsADefect() throws {
        let dir = try TemporaryDirectory()
        var bytes = try Hostile.schema().2
        // The second property's flags: kind, count, "id" (1+2), type, flags, "name" (1+4), type, then its flags.
        #expect(bytes[13] == 0)
        bytes[13] = 16
        try Hostile.expectDefect(try Hostile.file(dir, [(ObjectSchema.schemaTreeName, Array("Pet".utf8), bytes)]),
                                 says: "property name has the set flag without the list flag")
    }
}
