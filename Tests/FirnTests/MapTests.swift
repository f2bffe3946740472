import FirnCore
import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// `Map` as an app uses it: values by String keys in key order, live and
/// frozen with its object, observed, emptied with its owner, a deleted
/// object's value read as nil, carried by migrations, and checked by the built `firn`.
@Suite struct MapTests {
    final class Dog: Object {
        @Persisted(primaryKey: true) var name = ""
        /// The teams whose `dogs` map holds this dog (under any key).
        @Persisted(originProperty: "dogs") var teams: LinkingObjects<Team>
    }

    final class Team: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var scores = Map<String, Int>()
        @Persisted var notes = Map<String, String?>()
        @Persisted var dogs = Map<String, Dog?>()
    }

    static func configuration(_ scratch: Scratch) -> Configuration { scratch.configuration([Team.self, Dog.self]) }

    /// A new unmanaged object with one property set.
    static func made<T: Object, V>(_ keyPath: ReferenceWritableKeyPath<T, V>, _ value: V) -> T {
        let object = T()
        object[keyPath: keyPath] = value
        return object
    }

    static func team(_ id: Int) -> Team { made(\.id, id) }
    static func dog(_ name: String) -> Dog { made(\.name, name) }
    static func badge(_ label: String) -> Badge { made(\.label, label) }

    @Test func anUnmanagedMapKeepsItsKeysInOrderAndAddingItsObjectStoresThem() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let team = Self.team(1)
        team.scores["b"] = 2
        team.scores["a"] = 1
        team.scores["é"] = 3
        team.scores["b"] = 20
        team.notes["x"] = .some(nil)
        team.dogs["rex"] = Self.dog("Rex")
        #expect(team.scores.keys == ["a", "b", "é"] && team.scores.values == [1, 20, 3] && team.notes.count == 1)
        try db.write { try db.add(team) }
        #expect(team.scores.keys == ["a", "b", "é"] && team.scores.values == [1, 20, 3])
        #expect(team.scores["b"] == 20 && team.scores["zz"] == nil && team.scores.contains(key: "a") && !team.scores.contains(key: "c"))
        #expect(team.notes.count == 1 && team.notes["x"] == .some(nil) && team.notes["y"] == nil)
        #expect(team.dogs["rex"]??.name == "Rex" && db.objects(Dog.self).count == 1)
        #expect(Array(team.scores.map { "\($0.key)=\($0.value)" }) == ["a=1", "b=20", "é=3"])
    }

    @Test func updateRemoveAndTheSubscriptInAWrite() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let team = Self.team(1)
        try db.write { try db.add(team) }
        try db.write {
            for key in ["m", "c", "x", "a", "q"] { try team.scores.updateValue(key.count * Int(key.unicodeScalars.first?.value ?? 0), forKey: key) }
            try team.scores.updateValue(7, forKey: "c")
            team.scores["x"] = nil                      // nil removes the key, as in Realm
            #expect(try team.scores.removeValue(forKey: "q") == 113)
            #expect(try team.scores.removeValue(forKey: "absent") == nil)
            try team.scores.removeObject(for: "m")
        }
        #expect(team.scores.keys == ["a", "c"] && team.scores.values == [97, 7])
        let reread = try #require(try db.object(ofType: Team.self, forPrimaryKey: 1))
        #expect(reread.scores["c"] == 7 && reread.scores.count == 2)
        try db.write { try team.scores.removeAll() }
        #expect(team.scores.isEmpty)
        #expect(try MigrationTests.count(scratch, "list.Team.scores") == 0)
    }

    @Test func queriesThroughAMapsKeysAndValues() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write {
            for id in 1...4 {
                let team = Self.team(id)
                team.scores[id % 2 == 0 ? "even" : "odd"] = id * 10
                team.scores["n\(id)"] = id
                if id == 1 { team.notes["x"] = "y" }
                try db.add(team)
            }
        }
        let teams = db.objects(Team.self)
        #expect(try teams.where { $0.scores.keys.contains("even") }.map(\.id) == [2, 4])
        #expect(try teams.where { $0.scores.values.contains(30) }.map(\.id) == [3])
        #expect(try teams.where { $0.scores.values.allSatisfy { $0 < 25 } }.map(\.id) == [1, 2])
        #expect(try teams.where { $0.scores.keys.contains { $0.beginsWith("o") } && !$0.notes.keys.isEmpty }.map(\.id) == [1])
        #expect(try teams.where { $0.scores["even"] == 40 }.map(\.id) == [4])
        #expect(try teams.where { $0.scores["odd"] > 10 || $0.scores["n2"] == 2 }.map(\.id) == [2, 3])
        // A map without the key reads nil there.
        #expect(try teams.where { $0.scores["even"] != 20 }.map(\.id) == [1, 3, 4])
        #expect(try teams.where { $0.notes["x"] == nil }.map(\.id) == [2, 3, 4])
        #expect(try teams.where { $0.notes["x"] == "y" }.map(\.id) == [1])
    }

    @Test func changesNeedAWriteAndAFrozenMapRefusesThem() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let team = Self.team(1)
        team.scores["a"] = 1
        try db.write { try db.add(team) }
        #expect(throws: DatabaseError.self) { try team.scores.updateValue(2, forKey: "a") }
        let outside = #expect(throws: DatabaseError.self) { try team.scores.removeValue(forKey: "a") }
        #expect("\(outside.map { "\($0)" } ?? "")".contains("write transaction"), "\(String(describing: outside))")
        let frozen = try team.scores.freeze()
        try db.write {
            #expect(throws: DatabaseError.self) { try frozen.updateValue(3, forKey: "b") }
            team.scores["b"] = 2
        }
        #expect(frozen.isFrozen && frozen.keys == ["a"] && team.scores.keys == ["a", "b"])
        #expect(try frozen.thaw()?.keys == ["a", "b"])
        #expect(throws: DatabaseError.self) { _ = try Map<String, Int>().freeze() }
    }

    @Test func aDeletedObjectLeavesItsKeyWithNilAndADeletedOwnerItsEntries() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let team = Self.team(1)
        let other = Self.team(2)
        try db.write {
            team.dogs["a"] = Self.dog("Ace")
            team.dogs["b"] = Self.dog("Bo")
            try db.add(team)
            try other.dogs.updateValue(try #require(try db.object(ofType: Dog.self, forPrimaryKey: "Ace")), forKey: "z")
            try db.add(other)
        }
        let ace = try #require(try db.object(ofType: Dog.self, forPrimaryKey: "Ace"))
        #expect(ace.teams.map(\.id) == [1, 2] && team.dogs["b"]??.teams.map(\.id) == [1])
        let log = NotificationTests.Log<String>()
        let token = try team.observe { change in
            if case let .change(_, properties) = change { log.append(properties.map(\.name).joined(separator: ",")) }
        }
        try db.write { try db.delete(ace) }
        #expect(team.dogs.keys == ["a", "b"] && team.dogs["a"].map { $0 == nil } == true && team.dogs["b"]??.name == "Bo")
        #expect(other.dogs.count == 1 && other.dogs["z"].map { $0 == nil } == true)
        // Stored as null, not as a link to the deleted dog (FORMAT.md §12.4).
        if case let .managed(list) = team.dogs.storage { #expect(try list.mapEntry(at: 0)?.key == "a" && list.mapEntry(at: 0)?.value == nil) }
        try db.write { team.scores["k"] = 1 }
        #expect(log.entries == ["dogs", "scores"])
        token.invalidate()
        try db.write { try db.delete(team) }
        #expect(team.scores.isInvalidated && team.dogs.isInvalidated)
        #expect(try MigrationTests.count(scratch, "list.Team.scores") == 0 && MigrationTests.count(scratch, "list.Team.dogs") == 1)
    }

    final class Badge: EmbeddedObject {
        @Persisted var label = ""
    }

    /// With generated keys.
    final class Club: Object {
        @Persisted var badges = Map<String, Badge?>()
    }

    /// An embedded value is owned by its entry: replaced, removed or its
    /// owner deleted, it is deleted, and the built `firn verify` finds each
    /// embedded object held once.
    @Test func embeddedValuesAreOwnedByTheirEntries() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: scratch.configuration([Club.self, Badge.self]))
            let (club, other) = (Club(), Club())
            club.badges["gold"] = Self.badge("g1")
            club.badges["blue"] = Self.badge("b1")
            other.badges["red"] = Self.badge("r1")
            try db.write { try db.add(club); try db.add(other) }
            #expect(try MigrationTests.count(scratch, "obj.Badge") == 3)
            try db.write { club.badges["gold"] = Self.badge("g2") }
            #expect(try club.badges["gold"]??.label == "g2" && MigrationTests.count(scratch, "obj.Badge") == 3)
            try db.write { try club.badges.removeValue(forKey: "blue") }
            #expect(try club.badges.keys == ["gold"] && MigrationTests.count(scratch, "obj.Badge") == 2)
            try db.write { club.badges["gold"]??.label = "g3" }
            #expect(club.badges["gold"]??.label == "g3")
            try db.write { try db.delete(other) }
            #expect(try MigrationTests.count(scratch, "obj.Badge") == 1)
        }
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
    }

    /// A results observer of the owners hears a change inside an embedded
    /// value of a map as a modification of the owner that holds it (the
    /// holders are found by reading the map's entries, keys and all).
    @Test func resultsObserversHearOfChangesInsideAMapsEmbeddedValues() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Club.self, Badge.self]))
        let (club, other) = (Club(), Club())
        club.badges["gold"] = Self.badge("g1")
        other.badges["red"] = Self.badge("r1")
        try db.write { try db.add(club); try db.add(other) }
        let clubs = db.objects(Club.self)
        let row = try #require(clubs.firstIndex { $0.badges["gold"] != nil })
        let log = NotificationTests.Log<[Int]>()
        let token = try clubs.observe { change in
            if case let .update(_, _, _, modifications) = change { log.append(modifications) }
        }
        try db.write { club.badges["gold"]??.label = "g2" }
        try db.write { other.badges["red"]??.label = "r2" }
        token.invalidate()
        #expect(log.entries == [[row], [1 - row]])
    }

    final class Board: Object, Codable {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var scores = Map<String, Int>()
    }

    /// A `Codable` object with a map decodes it from a JSON object and
    /// encodes it back, managed.
    @Test func aCodableObjectsMapIsAJSONObject() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Board.self]))
        let board = try JSONDecoder().decode(Board.self, from: Data(#"{"id": 1, "scores": {"b": 2, "a": 1}}"#.utf8))
        #expect(board.scores.keys == ["a", "b"])
        try db.write { try db.add(board) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(board), as: UTF8.self) == #"{"id":1,"scores":{"a":1,"b":2}}"#)
    }

    @Test func codableAndDescription() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let team = Self.team(1)
        try team.scores.updateValue(2, forKey: "b")
        team.scores["a"] = 1
        let unmanaged = "\(team)"
        try db.write { try db.add(team) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys   // a JSON object's keys have no order of their own
        let json = String(decoding: try encoder.encode(team.scores), as: UTF8.self)
        #expect(json == #"{"a":1,"b":2}"#, "\(json)")
        let decoded = try JSONDecoder().decode(Map<String, Int>.self, from: Data(#"{"y":2,"x":1}"#.utf8))
        #expect(decoded.keys == ["x", "y"] && decoded["y"] == 2 && !decoded.isFrozen)
        #expect("\(team)".contains("scores = Map<String, Int> [a: 1, b: 2]"), "\(team)")
        #expect(unmanaged.contains("scores = Map<String, Int> [a: 1, b: 2]"), "\(unmanaged)")
        #expect("\(team)".contains("dogs = Map<String, Dog?> []"), "\(team)")
    }

    enum Renamed {
        final class Dog: Object {
            @Persisted(primaryKey: true) var name = ""
        }

        final class Team: Object {
            @Persisted(primaryKey: true) var code = ""
            @Persisted var points = Map<String, Int>()
            @Persisted var notes = Map<String, String?>()
            @Persisted var dogs = Map<String, Dog?>()
        }
    }

    /// A map renamed, its type rekeyed (a new primary key) and its values
    /// rewritten in the block: every entry keeps its key and order.
    @Test func migrationsCarryAndRewriteMaps() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: Self.configuration(scratch))
            try db.write {
                let team = Self.team(1)
                team.scores["b"] = 2
                team.scores["a"] = 1
                team.notes["n"] = "note"
                team.dogs["d"] = Self.dog("Rex")
                try db.add(team)
            }
        }
        let configuration = Configuration(path: scratch.file, objectTypes: [Renamed.Team.self, Renamed.Dog.self], schemaVersion: 1,
                                          migrationBlock: { migration, _ in
            try migration.renameProperty(onType: "Team", from: "scores", to: "points")
            try migration.enumerateObjects(ofType: "Team") { old, new in
                new["code"] = "t\(old["id"] as? Int ?? 0)"
                // A map reads as a dictionary.
                let notes = old["notes"] as? [String: Any?] ?? [:]
                #expect(notes.count == 1)
                new["notes"] = notes.merging(["m": "more", "z": nil]) { a, _ in a } as [String: Any?]
            }
        })
        let db = try Database(configuration: configuration)
        let team = try #require(db.objects(Renamed.Team.self).first)
        #expect(team.code == "t1" && team.points.keys == ["a", "b"] && team.points.values == [1, 2])
        #expect(team.notes.keys == ["m", "n", "z"] && team.notes["n"] == "note" && team.notes["z"] == .some(nil) && team.notes["m"] == "more")
        #expect(team.dogs["d"]??.name == "Rex")
    }

    enum AsList {
        final class Team: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var scores = List<Int>()
        }
    }

    @Test func aListCannotBecomeAMapInAMigration() throws {
        let message = try Self.migrationRefusal(from: [AsList.Team.self], to: [Team.self, Dog.self])
        #expect(message.contains("Team.scores") && message.contains("between List<Int> and Map<String, Int>"), "\(message)")
    }

    /// What opening a file made with the types `before` with the types
    /// `after` (schema version 1, a block that does nothing) throws, in words.
    static func migrationRefusal(from before: [Object.Type], to after: [Object.Type]) throws -> String {
        let scratch = Scratch()
        _ = try Database(configuration: scratch.configuration(before))   // closed as it goes
        let configuration = Configuration(path: scratch.file, objectTypes: after, schemaVersion: 1, migrationBlock: { _, _ in })
        let error = #expect(throws: DatabaseError.self) { _ = try Database(configuration: configuration) }
        return error.map { "\($0)" } ?? ""
    }

    enum Required {
        final class Dog: Object {
            @Persisted(primaryKey: true) var name = ""
        }

        final class Team: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var dogs = Map<String, Dog>()
        }
    }

    @Test func aMapOfObjectsHoldsOptionals() throws {
        let scratch = Scratch()
        let error = #expect(throws: DatabaseError.self) {
            _ = try Database(configuration: scratch.configuration([Required.Team.self, Required.Dog.self]))
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("must be optional"), "\(String(describing: error))")
    }

    @Test func verifyDumpAndInfoThroughTheBuiltFirn() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: Self.configuration(scratch))
            try db.write {
                let dogs = (0..<3).map { Self.dog("d\($0)") }
                for dog in dogs { try db.add(dog) }
                for id in 1...20 {
                    let team = Self.team(id)
                    for key in 0..<(id % 4) { team.scores["k\(key)"] = id * 10 + key }
                    team.dogs["pet"] = dogs[id % 3]
                    try db.add(team)
                }
            }
        }
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
        let dump = try FirnCommand.run(["dump", scratch.file, "--objects", "--type", "Team", "--limit", "3"])
        #expect(dump.status == 0 && dump.output.contains("scores: [\"k0\": 30, \"k1\": 31, \"k2\": 32]"), "\(dump.output)")
        #expect(dump.output.contains("notes: [:]") && dump.output.contains("dogs: [\"pet\": Dog[\"d0\"]]"), "\(dump.output)")
        let info = try FirnCommand.run(["info", scratch.file])
        #expect(info.output.contains("scores: Map<String, Int>") && info.output.contains("dogs: Map<String, Dog?>"), "\(info.output)")
    }

    /// An app's `main.swift` (firn-sdk-client): a map changed on another
    /// thread is heard through its object's `changes`, naming the property.
    @Test func anAppHearsAMapChangeFromAnotherThread() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("map", database: scratch.file)
        #expect(!outcome.crashed && outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == ["changed: [\"counts\"], counts [\"a\": 1, \"b\": 2]"], "\(outcome.stdout)")
    }
}
