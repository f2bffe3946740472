import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// Damaged schemas, records and list trees: `dump --objects` fails with one
/// line and exit 65 naming the tree and key, `info` still reports the rest,
/// and random records never crash the decoder.
@Suite struct ObjectHostileInputTests {
    static let petSchema: [PropertySchema] = [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "tags", type: .string, isList: true),
    ]

    static func petKey(_ id: Int64) -> [UInt8] { ObjectKey.encode(.int(id), as: .int) ?? [] }

    static func record(_ id: Int64, _ name: String) -> [UInt8] {
        ObjectRecord.encode([(tag: 0, type: .int, value: .int(id)), (tag: 1, type: .string, value: .string(name))])
    }

    /// A file holding `entries` (tree, key, value), written with the engine directly.
    static func file(_ dir: TemporaryDirectory, _ entries: [(String, [UInt8], [UInt8])], name: String = "bad.firn") throws -> String {
        let path = dir.file(name)
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        try store.write { txn in
            for (tree, key, value) in entries {
                _ = try txn.tree(tree)?.put(key, value)
            }
        }
        try? FileManager.default.removeItem(atPath: path + ".lock")
        return path
    }

    static func schema(_ properties: [PropertySchema] = petSchema, name: String = "Pet") throws -> (String, [UInt8], [UInt8]) {
        (ObjectSchema.schemaTreeName, Array(name.utf8), try ObjectSchema(name: name, properties: properties).encode())
    }

    static func expectDefect(_ path: String, says: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for arguments in [["--objects"], ["--objects", "--json"], ["--objects", "--type", "Pet"]] {
            let run = try FirnRun.run(["dump", path] + arguments)
            #expect(run.status == 65 && run.isCleanFailure, "\(arguments): \(run.status) \(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stderr.hasPrefix("firn: \(path)") && run.stderr.contains(says), "\(run.stderr)", sourceLocation: sourceLocation)
        }
        // A file `dump --objects` refuses never verifies clean: `verify`
        // decodes the object layer too (FORMAT.md §12), and names the defect.
        let verify = try FirnRun.run(["verify", path])
        #expect(verify.status == 65 && verify.isCleanFailure, "verify: \(verify.status) \(verify.stdout)\(verify.stderr)",
                sourceLocation: sourceLocation)
        #expect(verify.stdout.contains("FINDING:") && verify.stdout.contains("object: ") && verify.stdout.contains(says),
                "verify names the defect: \(verify.stdout)", sourceLocation: sourceLocation)
    }

    @Test func aHealthyHandMadeFileDumps() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.file(dir, [try Self.schema(), ("obj.Pet", Self.petKey(1), Self.record(1, "Rex")),
                                     ("list.Pet.tags", ListKey.key(Self.petKey(1), 0), ListElement.encode(.string("x"), as: .string) ?? [])])
        let run = try FirnRun.run(["dump", db, "--objects"])
        #expect(run.status == 0 && run.stdout.contains("Pet(id: 1, name: \"Rex\", tags: [\"x\"])"), "\(run.stdout)\(run.stderr)")
    }

    @Test func aSchemaRecordOfAnUnknownTypeIsADefectButInfoStillAnswers() throws {
        let dir = try TemporaryDirectory()
        var bytes = try Self.schema().2
        // The first property's type byte: format, count, name length, "id", type.
        bytes[5] = 99
        let db = try Self.file(dir, [(ObjectSchema.schemaTreeName, Array("Pet".utf8), bytes)])
        try Self.expectDefect(db, says: "sys.schema: schema of Pet: property id has unknown type 99")
        let info = try FirnRun.run(["info", db])
        #expect(info.status == 0 && info.stdout.contains("unreadable schema") && info.stdout.contains("unknown type 99"), "\(info.stdout)")
        struct Problem: Decodable { let objectTypesProblem: String? }
        #expect(try FirnRun.run(["info", db, "--json"]).json(Problem.self).objectTypesProblem?.contains("unknown type 99") == true)
    }

    @Test func schemaDefectsEachExit65() throws {
        let dir = try TemporaryDirectory()
        let cases: [(String, [(String, [UInt8], [UInt8])], String)] = [
            ("target", [try Self.schema([PropertySchema(name: "owner", type: .object, isOptional: true, objectType: "Person")])],
             "links to Person, which has no schema"),
            ("name", [(ObjectSchema.schemaTreeName, [0xFF, 0xFE], try Self.schema().2)], "a type name is not UTF-8"),
            ("truncated", [(ObjectSchema.schemaTreeName, Array("Pet".utf8), Array(try Self.schema().2.dropLast(2)))], "schema of Pet"),
            ("empty", [(ObjectSchema.schemaTreeName, Array("Pet".utf8), [])], "schema of Pet"),
        ]
        for (name, entries, says) in cases {
            let db = try Self.file(dir, entries, name: name + ".firn")
            try Self.expectDefect(db, says: says)
        }
    }

    @Test func recordAndListDefectsNameTheTreeAndKey() throws {
        let dir = try TemporaryDirectory()
        let key = Self.petKey(7)
        let wrongType = ObjectRecord.encode([(tag: 1, type: .int, value: .int(5))])
        let pastTheSchema = ObjectRecord.encode([(tag: 9, type: .int, value: .int(5))])
        let listField = ObjectRecord.encode([(tag: 2, type: .string, value: .string("x"))])
        let gap = ListKey.key(key, 1)
        let cases: [(String, [(String, [UInt8], [UInt8])], String)] = [
            ("type", [("obj.Pet", key, wrongType)], "obj.Pet key"),
            ("tag", [("obj.Pet", key, pastTheSchema)], "field tag 9 names no property"),
            ("list-field", [("obj.Pet", key, listField)], "list property tags has a field"),
            ("garbage", [("obj.Pet", key, [1, 200, 1, 2])], "obj.Pet key"),
            ("format", [("obj.Pet", key, [7, 0])], "unknown object record format 7"),
            ("key", [("obj.Pet", [1, 2, 3], Self.record(1, "Rex"))], "object key of 3 bytes (8 expected)"),
            ("primary-key", [("obj.Pet", key, Self.record(8, "Rex"))], "the primary key id holds"),
            ("gap", [("obj.Pet", key, Self.record(7, "Rex")), ("list.Pet.tags", gap, ListElement.encode(.string("x"), as: .string) ?? [])],
             "is not at position 0"),
            ("element", [("obj.Pet", key, Self.record(7, "Rex")), ("list.Pet.tags", ListKey.key(key, 0), [2, 1, 2, 3, 4, 5, 6, 7, 8])],
             "a list element of type 2"),
        ]
        for (name, entries, says) in cases {
            let db = try Self.file(dir, [try Self.schema()] + entries, name: name + ".firn")
            try Self.expectDefect(db, says: says)
        }
    }

    /// A Decimal field (FORMAT.md §12.2) dumps as its digits; an encoding
    /// that is not the value's one is a defect, named with tree and key.
    @Test func decimalFieldsDumpAndTheirOtherEncodingsAreDefects() throws {
        let dir = try TemporaryDirectory()
        let schema = try Self.schema([PropertySchema(name: "id", type: .int, isPrimaryKey: true),
                                      PropertySchema(name: "price", type: .decimal, isOptional: true)])
        let key = Self.petKey(1)
        func record(_ price: [UInt8]) -> [UInt8] {
            // format 1, 2 fields: id (tag 0, Int, 8 bytes), price (tag 1, Decimal, 18 bytes).
            [1, 2, 0, 2, 8] + (FieldValue.int(1).encoded(as: .int) ?? []) + [1, 14, UInt8(price.count)] + price
        }
        let price = StoredDecimal(isNegative: true, exponent: -2, mantissa: 1999).encoded
        let healthy = try Self.file(dir, [schema, ("obj.Pet", key, record(price))], name: "healthy.firn")
        let run = try FirnRun.run(["dump", healthy, "--objects"])
        #expect(run.status == 0 && run.stdout.contains("Pet(id: 1, price: -19.99)"), "\(run.stdout)\(run.stderr)")
        #expect(try FirnRun.run(["verify", healthy]).status == 0)
        let cases: [(String, [UInt8], String)] = [
            ("trailing-zero", [254, 0, 150] + [UInt8](repeating: 0, count: 15), "a Decimal mantissa with a trailing zero"),
            ("flags", [0, 8, 1] + [UInt8](repeating: 0, count: 15), "a Decimal field with flags 8"),
            ("negative-zero", [0, 1] + [UInt8](repeating: 0, count: 16), "a Decimal zero with a sign or an exponent"),
            ("short", Array(price.dropLast()), "a Decimal field of 17 bytes (18 expected)"),
        ]
        for (name, bytes, says) in cases {
            let db = try Self.file(dir, [schema, ("obj.Pet", key, record(bytes))], name: name + ".firn")
            try Self.expectDefect(db, says: says)
        }
    }

    /// `verify` finds what `dump --objects` cannot see: list elements whose
    /// owner is gone, and index trees that disagree with the records
    /// (FORMAT.md §12.4, §12.5).
    @Test func listsAndIndexesThatDisagreeWithTheObjectsFailVerify() throws {
        let dir = try TemporaryDirectory()
        let indexed: [PropertySchema] = [
            PropertySchema(name: "id", type: .int, isPrimaryKey: true),
            PropertySchema(name: "name", type: .string, isIndexed: true),
            PropertySchema(name: "tags", type: .string, isList: true),
        ]
        let schema = try Self.schema(indexed)
        let key = Self.petKey(7)
        func entry(_ name: String, for id: Int64) -> (String, [UInt8], [UInt8]) {
            ("idx.Pet.name", IndexKey.key(.string(name), as: .string, objectKey: Self.petKey(id)) ?? [], [])
        }
        let sound = [schema, ("obj.Pet", key, Self.record(7, "Rex")), entry("Rex", for: 7),
                     ("list.Pet.tags", ListKey.key(key, 0), ListElement.encode(.string("x"), as: .string) ?? [])]
        let healthy = try Self.file(dir, sound, name: "sound.firn")
        let clean = try FirnRun.run(["verify", healthy])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        let orphan = ("list.Pet.tags", ListKey.key(Self.petKey(9), 0), ListElement.encode(.string("y"), as: .string) ?? [])
        let cases: [(String, [(String, [UInt8], [UInt8])], String)] = [
            ("orphan", sound + [orphan], "is no Pet object"),
            ("missing-entry", sound.filter { $0.0 != "idx.Pet.name" }, "0 index entries for 1 Pet objects"),
            ("wrong-value", sound.filter { $0.0 != "idx.Pet.name" } + [entry("Max", for: 7)], "does not match the name of Pet"),
            // As many entries as objects, but one names an object that does not exist.
            ("no-object", sound + [("obj.Pet", Self.petKey(6), Self.record(6, "Ida")), entry("Ida", for: 9)],
             "no Pet object"),
        ]
        for (name, entries, says) in cases {
            let db = try Self.file(dir, entries, name: name + ".firn")
            // `dump --objects` reads each object and its own list: it has nothing to refuse here.
            let verify = try FirnRun.run(["verify", db])
            #expect(verify.status == 65 && verify.isCleanFailure, "\(name): \(verify.status) \(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("object: ") && verify.stdout.contains(says), "\(name): \(verify.stdout)")
        }
    }

    /// Random records under a valid schema, decoded in-process: each either
    /// decodes or is reported as a defect, never a crash or a hang.
    @Test func randomRecordsNeverCrashTheDecoder() throws {
        let dir = try TemporaryDirectory()
        var rng = SystemRandomNumberGenerator()
        let valid = Self.record(3, "Rex")
        for round in 0..<150 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            let db = try Self.file(dir, [try Self.schema(), ("obj.Pet", Self.petKey(3), bytes)], name: "fuzz\(round).firn")
            var shown = 0
            do {
                _ = try ObjectDump.run(ObjectDump.Options(path: db), type: { _ in }, object: { _ in shown += 1 })
                #expect(shown == 1)
            } catch let error as FirnError {
                guard case .corrupt = error else {
                    Issue.record("round \(round): \(error)")
                    continue
                }
            }
            try FileManager.default.removeItem(atPath: db)
        }
    }

    /// Two cells of `obj.Dog`'s root sharing a child: the walk would repeat
    /// objects; the shape check names the page instead (and never hangs).
    @Test func anObjectTreeWhosePagesRepeatIsADefectNotARepeat() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("app.firn")
        #expect(try FirnRun.run(["demo-app", "write", db, "--commits", "30"]).status == 0)
        // The surgery is on the trees' pages: the log's frames go into them first.
        #expect(try FirnRun.run(["checkpoint", db]).status == 0)
        try FileManager.default.removeItem(atPath: db + ".lock")
        var file = try FileSurgery(db)
        file.zero(page: UInt64(1 - file.currentSlot))
        try file.save()
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        let root = try #require(info.trees.first { $0.name == "obj.Dog" && $0.depth == 2 }).rootPage
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"]).json(PagesJSON.self).pages
        let catalog = try #require(pages.first { $0.tree == "(catalog)" }).page
        file = try FileSurgery(db)
        let first = file.cell(root, 0), second = file.cell(root, 1)
        for i in 0..<20 { file.bytes[second + 2 + i] = file.bytes[first + 2 + i] }
        file.resealChain(root, parents: [catalog])
        try file.save()
        for arguments in [["--objects"], ["--objects", "--type", "Dog", "--json"]] {
            let run = try FirnRun.run(["dump", db] + arguments, timeout: 30)
            #expect(run.status == 65 && run.isCleanFailure && run.stderr.contains("reached twice"), "\(run.status) \(run.stderr)")
        }
        // A type whose trees are sound still dumps.
        #expect(try FirnRun.run(["dump", db, "--objects", "--type", "Person"]).status == 0)
    }
}
