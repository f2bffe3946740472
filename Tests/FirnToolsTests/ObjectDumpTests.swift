import Firn
import Foundation
import Testing
import FirnTestSupport

/// `firn dump --objects` and `firn info`'s object types on files the SDK
/// wrote: the built binary decodes them from the stored schema alone (these
/// classes are not in it), text and JSON.
@Suite struct ObjectDumpTests {
    final class Owner: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var pets = List<Pet>()
        @Persisted var tags = List<String?>()
        @Persisted var best: Pet?
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var owner: Owner?
        @Persisted var notes = List<Note>()
    }

    /// No primary key: generated keys.
    final class Note: Object {
        @Persisted var text = ""
        @Persisted var scores = List<Double>()
    }

    final class Sample: Object {
        @Persisted(primaryKey: true) var id: Int8 = 0
        @Persisted var bool = false
        @Persisted var int = 0
        @Persisted var int16: Int16 = 0
        @Persisted var int32: Int32 = 0
        @Persisted var int64: Int64 = 0
        @Persisted var double = 0.0
        @Persisted var float: Float = 0
        @Persisted(indexed: true) var string = ""
        @Persisted var data = Data()
        @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
        @Persisted var uuid = UUID()
        @Persisted var maybe: Int?
        @Persisted var maybeDate: Date?
    }

    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()

    /// A file with owners, pets (links both ways, lists of objects and of
    /// optional strings), notes without a primary key, and every scalar.
    static func database(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("objects.firn")
        let db = try Database(configuration: Configuration(path: path, objectTypes: [Owner.self, Pet.self, Note.self, Sample.self]))
        try db.write {
            let ann = Owner()
            ann.name = "Ann"
            try ann.tags.append(contentsOf: ["a\"b", nil, "line\nbreak"])
            try db.add(ann)
            for (id, name) in [(1, "Rex"), (2, "Fido"), (3, "Gone")] {
                let pet = Pet()
                pet.id = id
                pet.name = name
                pet.owner = ann
                try db.add(pet)
                try ann.pets.append(pet)
            }
            ann.best = try db.object(ofType: Pet.self, forPrimaryKey: 3)
            let note = Note()
            note.text = "first"
            try note.scores.append(contentsOf: [1.5, -0.25])
            try db.add(note)
            try db.object(ofType: Pet.self, forPrimaryKey: 1)?.notes.append(note)
            let empty = Owner()
            empty.name = "Bo"
            try db.add(empty)

            let sample = Sample()
            sample.id = -3
            sample.bool = true
            sample.int = Int.min
            sample.int16 = -2
            sample.int32 = 70_000
            sample.int64 = Int64.max
            sample.double = .infinity
            sample.float = 0.5
            sample.string = "é\t"
            sample.data = Data([0, 1, 0xAB])
            sample.date = Date(timeIntervalSinceReferenceDate: 86_400.25)
            sample.uuid = uuid
            try db.add(sample)
        }
        // A deleted target: the link reads nil, the list loses it.
        try db.write {
            if let gone = try db.object(ofType: Pet.self, forPrimaryKey: 3) { try db.delete(gone) }
        }
        return path
    }

    static func lines(_ run: FirnRun) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func textShowsEveryPropertyLinksAsKeysAndListsAsArrays() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let run = try FirnRun.run(["dump", db, "--objects"])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = """
            Note: 1 object (generated keys)
              Note #1(text: "first", scores: [1.5, -0.25])
            Owner: 2 objects (primary key name)
              Owner(name: "Ann", pets: [Pet[1], Pet[2]], tags: ["a\\"b", nil, "line\\nbreak"], best: nil)
              Owner(name: "Bo", pets: [], tags: [], best: nil)
            Pet: 2 objects (primary key id)
              Pet(id: 1, name: "Rex", owner: Owner["Ann"], notes: [Note[#1]])
              Pet(id: 2, name: "Fido", owner: Owner["Ann"], notes: [])
            Sample: 1 object (primary key id)
              Sample(id: -3, bool: true, int: -9223372036854775808, int16: -2, int32: 70000, int64: 9223372036854775807, \
            double: inf, float: 0.5, string: "é\\t", data: <0001ab>, date: 2001-01-02T00:00:00.25Z, \
            uuid: E621E1F8-C36C-495A-93FC-0C247A3E6E5F, maybe: nil, maybeDate: nil)

            """
        #expect(run.stdout == expected)
    }

    @Test func jsonIsOneObjectPerLineWithTypedValues() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let run = try FirnRun.run(["dump", db, "--objects", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let objects = try Self.lines(run)
        #expect(objects.map { $0["type"] as? String } == ["Note", "Owner", "Owner", "Pet", "Pet", "Sample"])
        // Properties keep the schema's order on the line.
        #expect(run.stdout.contains("\"properties\":{\"name\":\"Ann\",\"pets\":[1,2],\"tags\":[\"a\\\"b\",null,\"line\\nbreak\"],\"best\":null}"))
        let note = try #require(objects.first)
        #expect(note["key"] as? Int == 1)
        let pet = try #require(objects.first { $0["type"] as? String == "Pet" })
        let petProperties = try #require(pet["properties"] as? [String: Any])
        #expect(pet["key"] as? Int == 1 && petProperties["owner"] as? String == "Ann" && petProperties["notes"] as? [Int] == [1])
        let sample = try #require(objects.last?["properties"] as? [String: Any])
        #expect(sample["int64"] as? Int64 == Int64.max && sample["int"] as? Int == Int.min)
        #expect(sample["double"] as? String == "inf" && sample["float"] as? Double == 0.5)
        #expect(sample["data"] as? String == Data([0, 1, 0xAB]).base64EncodedString())
        #expect(sample["date"] as? String == "2001-01-02T00:00:00.25Z")
        #expect(sample["uuid"] as? String == Self.uuid.uuidString)
        #expect(sample["maybe"] is NSNull && sample["bool"] as? Bool == true && sample["string"] as? String == "é\t")
    }

    @Test func typeAndLimitPickWhatIsShown() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let pets = try FirnRun.run(["dump", db, "--objects", "--type", "Pet", "--limit", "1"])
        #expect(pets.status == 0 && pets.stdout == "Pet: 2 objects (primary key id, showing 1)\n  Pet(id: 1, name: \"Rex\", owner: Owner[\"Ann\"], notes: [Note[#1]])\n")
        let json = try Self.lines(try FirnRun.run(["dump", db, "--objects", "--type", "Owner", "--json"]))
        #expect(json.map { $0["key"] as? String } == ["Ann", "Bo"])
        // An older version: the deleted pet is still there.
        let before = try FirnRun.run(["dump", db, "--objects", "--type", "Pet", "--version", "3"])
        #expect(before.status == 0 && before.stdout.contains("Pet(id: 3, name: \"Gone\""), "\(before.stdout)\(before.stderr)")
    }

    @Test func anUnknownTypeExits64NamingItAndTheStoredOnes() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let run = try FirnRun.run(["dump", db, "--objects", "--type", "Cat"])
        #expect(run.status == 64 && run.stdout.isEmpty && run.isCleanFailure, "\(run.stderr)")
        #expect(run.stderr.contains("no object type \"Cat\"") && run.stderr.contains("Note, Owner, Pet, Sample"), "\(run.stderr)")
        // A file the SDK did not write stores no types.
        let plain = try dir.sampleDatabase()
        let none = try FirnRun.run(["dump", plain, "--objects", "--type", "Dog"])
        #expect(none.status == 64 && none.isCleanFailure && none.stderr.contains("stores no object types"), "\(none.stderr)")
        let all = try FirnRun.run(["dump", plain, "--objects"])
        #expect(all.status == 0 && all.stdout.contains("stores no objects"))
        #expect(try FirnRun.run(["dump", plain, "--objects", "--json"]).stdout.isEmpty)
    }

    @Test func optionsThatDoNotGoTogetherAreUsageErrors() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let cases: [([String], String)] = [
            (["--type", "Pet"], "--type needs --objects"),
            (["--limit", "2"], "--limit needs --objects"),
            (["--objects", "--entries"], "exclusive"),
            (["--objects", "--pages"], "exclusive"),
            (["--objects", "--page", "2"], "exclusive"),
            (["--objects", "--tree", "obj.Pet"], "--tree and --objects are exclusive"),
            (["--objects", "--hex"], "--hex needs --entries"),
            (["--objects", "--limit", "0"], "from 1 to 1000000000"),
            (["--objects", "--limit", "many"], "from 1 to 1000000000"),
            (["--objects", "--type"], "missing value"),
            (["--objects", "--version", "999"], "999"),
        ]
        for (arguments, says) in cases {
            let run = try FirnRun.run(["dump", db] + arguments)
            let shown = arguments.joined(separator: " ")
            #expect(run.status == 64 && run.stdout.isEmpty && run.isCleanFailure, "\(shown): \(run.status) \(run.stderr)")
            #expect(run.stderr.hasPrefix("firn: ") && run.stderr.contains(says), "\(shown): \(run.stderr)")
        }
        let missing = try FirnRun.run(["dump", dir.file("missing.firn"), "--objects"])
        #expect(missing.status == 66 && missing.isCleanFailure)
    }

    @Test func infoListsObjectTypesWithCountsAndProperties() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        struct InfoTypes: Decodable {
            struct StoredType: Decodable {
                struct Property: Decodable {
                    let name: String; let type: String; let optional: Bool; let primaryKey: Bool
                    let indexed: Bool; let list: Bool; let target: String?; let declaration: String
                }
                let name: String; let objects: UInt64; let primaryKey: String?; let properties: [Property]
            }
            let objectTypes: [StoredType]
            let objectTypesProblem: String?
        }
        let run = try FirnRun.run(["info", db, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let info = try run.json(InfoTypes.self)
        #expect(info.objectTypesProblem == nil)
        #expect(info.objectTypes.map(\.name) == ["Note", "Owner", "Pet", "Sample"])
        #expect(info.objectTypes.map(\.objects) == [1, 2, 2, 1])
        #expect(info.objectTypes.map(\.primaryKey) == [nil, "name", "id", "id"])
        let owner = try #require(info.objectTypes.first { $0.name == "Owner" })
        #expect(owner.properties.map(\.declaration) == ["String", "List<Pet>", "List<String?>", "Pet?"])
        #expect(owner.properties[1].list && owner.properties[1].target == "Pet" && owner.properties[1].type == "Object")
        let string = try #require(info.objectTypes.last?.properties.first { $0.name == "string" })
        #expect(string.indexed && !string.optional && !string.primaryKey)
        let text = try FirnRun.run(["info", db])
        #expect(text.stdout.contains("  types     4"))
        #expect(text.stdout.contains("Pet") && text.stdout.contains("2 objects  id: Int (primary key), name: String, owner: Owner?, notes: List<Note>"))
        // A file the SDK did not write has no types, and says nothing about them.
        let plain = try FirnRun.run(["info", try dir.sampleDatabase(), "--json"]).json(InfoTypes.self)
        #expect(plain.objectTypes.isEmpty && plain.objectTypesProblem == nil)
    }
}
