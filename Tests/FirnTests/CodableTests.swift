import Foundation
import Testing
@testable import Firn

/// `Codable` objects as an app declares them (`final class Kid: Object,
/// Codable`): JSON decodes into unmanaged objects that `add` stores, and
/// objects — managed too, unlike Realm — encode their stored properties.
@Suite struct CodableTests {
    enum Mood: String, PersistableEnum, Codable {
        case calm, wild
    }

    final class Kid: Object, Codable {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var nickname: String?
        @Persisted var mood = Mood.calm
        @Persisted var allowance = Decimal(0)
        @Persisted var born: Date?
        @Persisted var tags = List<String>()
        @Persisted var pal: Kid?
        @Persisted(originProperty: "pal") var palOf: LinkingObjects<Kid>
    }

    static func configuration(_ scratch: Scratch) -> Configuration { scratch.configuration([Kid.self]) }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func jsonDecodesIntoUnmanagedObjectsThatAddStores() throws {
        let input = """
            {"id": 1, "name": "Ann", "mood": "wild", "allowance": 2.5, "tags": ["red", "fast"],
             "pal": {"id": 2, "name": "Ben"}}
            """
        let ann = try JSONDecoder().decode(Kid.self, from: Data(input.utf8))
        #expect(ann.name == "Ann" && ann.mood == .wild && ann.allowance == Decimal(string: "2.5") && Array(ann.tags) == ["red", "fast"])
        #expect(ann.nickname == nil && ann.pal?.name == "Ben" && ann.pal?.mood == .calm && ann.pal?.tags.isEmpty == true)  // missing keys: defaults
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write { try db.add(ann) }
        let ben = try #require(try db.object(ofType: Kid.self, forPrimaryKey: 2))
        #expect(ben.palOf.map(\.name) == ["Ann"] && db.objects(Kid.self).count == 2)
    }

    @Test func aManagedObjectEncodesItsStoredPropertiesWithLinksNested() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Kid(), ben = Kid()
        (ann.id, ann.name, ann.mood, ann.allowance) = (1, "Ann", .wild, Decimal(string: "2.5")!)
        (ben.id, ben.name, ben.nickname) = (2, "Ben", "B")
        ann.pal = ben
        try ann.tags.append(contentsOf: ["red", "fast"])
        try db.write { try db.add(ann) }
        #expect(ann.managed != nil)
        let encoded = try Self.json(ann)
        #expect(encoded == #"{"allowance":2.5,"id":1,"mood":"wild","name":"Ann","pal":{"allowance":0,"id":2,"mood":"calm","name":"Ben","nickname":"B","tags":[]},"tags":["red","fast"]}"#)
        // Managed and unmanaged objects encode alike, and decode back.
        let copy = try JSONDecoder().decode(Kid.self, from: Data(encoded.utf8))
        #expect(try Self.json(copy) == encoded)
        let frozen = try ann.freeze()
        #expect(try Self.json(frozen) == encoded)
    }

    @Test func aCycleOfLinksIsAnEncodingErrorNotARecursionWithoutEnd() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Kid(), ben = Kid()
        (ann.id, ben.id) = (1, 2)
        ann.pal = ben
        ben.pal = ann
        #expect(throws: EncodingError.self) { try Self.json(ann) }  // unmanaged
        try db.write { try db.add(ann) }
        do {
            _ = try Self.json(ann)
            Issue.record("a cycle encoded")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("Kid links back to an object being encoded"))
        }
        // The guard is per encoding: the next one starts clean.
        try db.write { ben.pal = nil }
        #expect(try Self.json(ann).contains(#""pal":{"allowance":0,"id":2"#))
    }

    /// The decoder's and encoder's strategies apply to the properties (a
    /// wrapper decodes its value through a container, as a plain property does).
    @Test func codingStrategiesApplyToProperties() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let kid = try decoder.decode(Kid.self, from: Data(#"{"id": 3, "born": "2020-01-02T03:04:05Z"}"#.utf8))
        #expect(kid.born == Date(timeIntervalSince1970: 1_577_934_245))
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write { try db.add(kid) }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        #expect(String(decoding: try encoder.encode(kid), as: UTF8.self).contains(#""born":"2020-01-02T03:04:05Z""#))
    }

    @Test func aDeletedObjectThrowsInsteadOfStoppingTheProgram() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Kid()
        try db.write { try db.add(ann) }
        try db.write { try db.delete(ann) }
        #expect(throws: DatabaseError.invalidatedObject(type: "Kid")) { try Self.json(ann) }
    }
}
