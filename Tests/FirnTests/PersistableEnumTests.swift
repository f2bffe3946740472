import Foundation
import Testing
@testable import Firn

/// Enum properties as an app declares them (`PersistableEnum`, Realm's
/// name): stored as their raw values, queried with `==`, `!=` and `in`; a
/// raw value the enum has no case for is a typed error.
@Suite struct PersistableEnumTests {
    enum Status: String, PersistableEnum {
        case open
        case inProgress = "in progress"
        case done
    }

    enum Priority: Int, PersistableEnum {
        case low = 1
        case high = 9
    }

    enum Ratio: Double, PersistableEnum {
        case half = 0.5
    }

    /// The app's model.
    enum Typed {
        final class Chore: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var status = Status.open
            @Persisted var priority: Priority?
            @Persisted var history = List<Status>()
        }
    }

    /// The same type as the file stores it: raw values.
    enum Raw {
        final class Chore: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var status = ""
            @Persisted var priority: Int?
            @Persisted var history = List<String>()
        }
    }

    final class Measured: Object {
        @Persisted var ratio = Ratio.half
    }

    static func chore(_ id: Int, _ status: Status, _ priority: Priority?) -> Typed.Chore {
        let chore = Typed.Chore()
        chore.id = id
        chore.status = status
        chore.priority = priority
        return chore
    }

    static func typed(_ scratch: Scratch) throws -> Database {
        try Database(configuration: scratch.configuration([Typed.Chore.self]))
    }

    @Test func enumPropertiesRoundTripWithTheirDefaultsAndOptionals() throws {
        let scratch = Scratch()
        let db = try Self.typed(scratch)
        let fresh = Typed.Chore()
        #expect(fresh.status == .open && fresh.priority == nil)
        try db.write {
            try db.add(Self.chore(1, .inProgress, .high))
            try db.add(Self.chore(2, .done, nil))
            try db.object(ofType: Typed.Chore.self, forPrimaryKey: 1)?.history.append(contentsOf: [.open, .inProgress])
        }
        let one = try #require(try db.object(ofType: Typed.Chore.self, forPrimaryKey: 1))
        let two = try #require(try db.object(ofType: Typed.Chore.self, forPrimaryKey: 2))
        #expect(one.status == .inProgress && one.priority == .high && Array(one.history) == [.open, .inProgress])
        #expect(two.status == .done && two.priority == nil)
        try db.write { one.priority = .low }
        #expect(one.priority == .low)
    }

    @Test func queriesCompareRawValues() throws {
        let scratch = Scratch()
        let db = try Self.typed(scratch)
        try db.write {
            try db.add(Self.chore(1, .open, .high))
            try db.add(Self.chore(2, .done, .low))
            try db.add(Self.chore(3, .inProgress, nil))
            try db.add(Self.chore(4, .done, .high))
        }
        let chores = db.objects(Typed.Chore.self)
        #expect(try chores.where { $0.status == .done }.map(\.id) == [2, 4])
        #expect(try chores.where { $0.status != .done }.map(\.id) == [1, 3])
        #expect(try chores.where { $0.status.in([.open, .inProgress]) }.map(\.id) == [1, 3])
        #expect(try chores.where { $0.priority == nil }.map(\.id) == [3])
        #expect(try chores.where { $0.priority == .high && $0.status == .done }.map(\.id) == [4])
        #expect(try chores.where { $0.history.contains(.done) }.isEmpty)
        // Sorted by the raw value (nulls first), as Realm sorts them.
        #expect(try chores.sorted(by: \.priority).map(\.id) == [3, 2, 1, 4])
    }

    @Test func theFileHoldsTheRawValuesWithTheRawTypes() throws {
        let scratch = Scratch()
        let db = try Self.typed(scratch)
        try db.write {
            try db.add(Self.chore(1, .inProgress, .high))
            try db.object(ofType: Typed.Chore.self, forPrimaryKey: 1)?.history.append(.done)
        }
        // The same schema with raw types opens without a migration and reads the raw values.
        let raw = try Database(configuration: scratch.configuration([Raw.Chore.self]))
        let chore = try #require(try raw.object(ofType: Raw.Chore.self, forPrimaryKey: 1))
        #expect(chore.status == "in progress" && chore.priority == 9 && Array(chore.history) == ["done"])
    }

    @Test func aRawValueOfNoCaseIsATypedErrorNamingTheEnumAndTheValue() throws {
        let scratch = Scratch()
        // Another build of the app, with a case this one lacks, wrote "archived" and 5.
        let raw = try Database(configuration: scratch.configuration([Raw.Chore.self]))
        try raw.write {
            let chore = Raw.Chore()
            chore.id = 1
            chore.status = "archived"
            chore.priority = 5
            try raw.add(chore)
        }
        let db = try Self.typed(scratch)
        let chore = try #require(try db.object(ofType: Typed.Chore.self, forPrimaryKey: 1))
        #expect(throws: DatabaseError.unknownEnumValue(type: "Chore", property: "status", enumType: "Status", rawValue: "archived")) {
            try chore.read(\.status)
        }
        #expect(throws: DatabaseError.unknownEnumValue(type: "Chore", property: "status", enumType: "Status", rawValue: "archived")) {
            try chore.read(\.status.rawValue)
        }
        #expect(throws: DatabaseError.unknownEnumValue(type: "Chore", property: "priority", enumType: "Priority", rawValue: "5")) {
            try chore.read(\.priority)
        }
        #expect(DatabaseError.unknownEnumValue(type: "Chore", property: "status", enumType: "Status", rawValue: "archived").description
                == "Chore.status: the stored raw value archived is no case of Status")
        // Queries compare raw values: no match, no error.
        #expect(try db.objects(Typed.Chore.self).where { $0.status == .open }.isEmpty)
        // The object still prints (its raw values).
        #expect(chore.description.contains("\tstatus = archived;\n"))
        // An unmanaged object prints its raw values too.
        #expect(Self.chore(2, .inProgress, .high).description.contains("\tstatus = in progress;\n\tpriority = 9;\n"))
    }

    /// The getter cannot throw: it stops the program with the same error.
    @Test func theGetterOfARawValueOfNoCaseStopsTheProgramNamingIt() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let raw = try? Database(configuration: scratch.configuration([Raw.Chore.self])) else { return }
            try? raw.write {
                let chore = Raw.Chore()
                chore.status = "archived"
                try raw.add(chore)
            }
            guard let db = try? Self.typed(scratch), let chore = db.objects(Typed.Chore.self).first else { return }
            _ = chore.status
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Chore.status: the stored raw value archived is no case of Status"), "\(text)")
    }

    @Test func readGivesTheValueOrTheErrorAGetterWouldStopTheProgramWith() throws {
        let scratch = Scratch()
        let db = try Self.typed(scratch)
        let chore = Self.chore(1, .done, .low)
        #expect(try chore.read(\.status) == .done)  // unmanaged
        try db.write { try db.add(chore) }
        #expect(try chore.read(\.status) == .done && chore.read(\.priority) == .low && chore.read(\.id) == 1)
        #expect(try chore.read(\.history).count == 0)
        #expect(try chore.read(\.status.rawValue) == "done")
        #expect(throws: DatabaseError.unknownProperty(type: "Chore", property: "a key path to Bool that reads no stored property")) {
            try chore.read(\.isFrozen)
        }
        try db.write { try db.delete(chore) }
        #expect(throws: DatabaseError.invalidatedObject(type: "Chore")) { try chore.read(\.status) }
    }

    @Test func anEnumWhoseRawValuesAreNotIntegersOrStringsIsRefused() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.invalidSchema(
            type: "Measured", detail: "property ratio is an enum whose raw values are Double (a PersistableEnum has Int or String raw values)")) {
            _ = try Database(configuration: scratch.configuration([Measured.self]))
        }
    }
}
