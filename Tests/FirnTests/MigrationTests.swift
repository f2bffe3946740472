import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// Schema migrations at open (docs/SDK.md, "Migrations"): additive changes
/// by themselves, others with a higher `schemaVersion` and a migration
/// block, all in one write transaction.
@Suite struct MigrationTests {
    struct Refused: Error, CustomStringConvertible { var description: String { "the block refused" } }

    /// Three pets with tags, owned by one keeper who lists them.
    static func seed(_ scratch: Scratch, version: UInt64 = 0) throws {
        let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsV1.types, schemaVersion: version))
        try db.write {
            let keeper = PetsV1.Keeper()
            keeper.id = 1
            keeper.name = "K"
            for (id, name, age) in [(1, "Rex Smith", 3), (2, "Tom", 5), (3, "Ada Lovelace", 7)] {
                let pet = PetsV1.Pet()
                pet.id = id
                pet.name = name
                pet.age = age
                pet.keeper = keeper
                for tag in 0..<id { try pet.tags.append("\(name.prefix(1))\(tag)") }
                try keeper.pets.append(pet)
            }
            try db.add(keeper)
        }
    }

    static func bytes(_ scratch: Scratch) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: scratch.file)) }

    /// Opening `scratch`'s file with `types` at schema version 1 and the
    /// migration `block` throws `error` and leaves the file's bytes as they were.
    static func expectNothingCommitted(_ scratch: Scratch, types: [Object.Type], throws error: DatabaseError,
                                       block: @escaping @Sendable (Migration, UInt64) throws -> Void) throws {
        let before = try bytes(scratch)
        let config = Configuration(path: scratch.file, objectTypes: types, schemaVersion: 1, migrationBlock: block)
        #expect(throws: error) { _ = try Database(configuration: config) }
        #expect(try bytes(scratch) == before)
    }

    /// Entries of tree `name` (nil when the file has no such tree).
    static func count(_ scratch: Scratch, _ name: String) throws -> UInt64? {
        let store = try Store.open(scratch.file)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return try snapshot.tree(name)?.count
    }

    static func storedVersion(_ scratch: Scratch) throws -> UInt64? {
        let store = try Store.open(scratch.file)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        return try snapshot.tree(SchemaMeta.treeName)?.get(SchemaMeta.schemaVersionKey).map { try SchemaMeta.decode($0.array, key: "schemaVersion") }
    }

    static func verify(_ scratch: Scratch) throws {
        let result = try FirnCommand.run(["verify", scratch.file])
        #expect(result.status == 0, "\(result.output)")
    }

    // MARK: automatic

    @Test func addedAndReorderedPropertiesAndNewTypesMigrateByThemselves() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsAdded.types))
            let pets = db.objects(PetsAdded.Pet.self)
            #expect(pets.map(\.id) == [1, 2, 3])
            #expect(pets.map(\.name) == ["Rex Smith", "Tom", "Ada Lovelace"])
            #expect(pets.map(\.age) == [3, 5, 7])
            #expect(pets.map { Array($0.tags) } == [["R0"], ["T0", "T1"], ["A0", "A1", "A2"]])
            // New properties read as null or their type's default, not the class's initial value.
            #expect(pets.map(\.nickname) == [nil, nil, nil])
            #expect(pets.map(\.weight) == [0, 0, 0])
            #expect(pets.map { $0.keeper?.name } == ["K", "K", "K"])
            let keeper = try #require(try db.object(ofType: PetsAdded.Keeper.self, forPrimaryKey: 1))
            #expect(keeper.pets.map(\.id) == [1, 2, 3])
            // The new index answers queries.
            #expect(try pets.where { $0.name == "Tom" }.map(\.id) == [2])
            try db.write {
                pets[0].nickname = "R"
                pets[1].name = "Thomas"
                try db.add(PetsAdded.Toy())
            }
            #expect(try pets.where { $0.name == "Thomas" }.map(\.id) == [2])
            #expect(try pets.where { $0.name == "Tom" }.isEmpty)
        }
        #expect(try Self.count(scratch, "idx.Pet.name") == 3)
        #expect(try Self.count(scratch, "obj.Toy") == 1)
        #expect(try Self.storedVersion(scratch) == nil)
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsReindexed.types))
            let pets = db.objects(PetsReindexed.Pet.self)
            #expect(pets.map(\.name) == ["Rex Smith", "Thomas", "Ada Lovelace"])
            #expect(pets.map(\.nickname) == ["R", nil, nil])
            #expect(try pets.where { $0.age == 5 }.map(\.id) == [2])
        }
        #expect(try Self.count(scratch, "idx.Pet.name") == nil)
        #expect(try Self.count(scratch, "idx.Pet.age") == 3)
        try Self.verify(scratch)
    }

    @Test func anUnchangedSchemaWritesNothing() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        let before = try Self.bytes(scratch)
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsV1.types))
            #expect(db.objects(PetsV1.Pet.self).count == 3)
        }
        #expect(try Self.bytes(scratch) == before)
    }

    // MARK: changes that need a migration

    @Test func eachOtherChangeFailsNamingItAndLeavesTheFileAlone() throws {
        let cases: [(types: [Object.Type], property: String, change: String)] = [
            (PetsRemoved.types, "tags", "property tags was removed"),
            (PetsRetyped.types, "age", "property age changed its type from Int to String"),
            (PetsOptional.types, "name", "property name became optional (String → String?)"),
            (PetsUnlisted.types, "tags", "property tags changed from a list to a single value (tags: List<String> → tags: String)"),
            (PetsRetargeted.types, "keeper", "property keeper changed its link target from Keeper? to Vet?"),
            (PetsRekeyed.types, "id", "property id is no longer the primary key"),
            (PetsUnkeyed.types, "id", "property id is no longer the primary key"),
        ]
        for (types, property, change) in cases {
            let scratch = Scratch()
            try Self.seed(scratch, version: 3)
            let before = try Self.bytes(scratch)
            // Neither a higher version nor a block; a block only; a version only.
            let attempts: [(UInt64, Bool, String)] = [
                (3, false, "raise Configuration.schemaVersion above 3 (it is 3) and set Configuration.migrationBlock"),
                (3, true, "raise Configuration.schemaVersion above 3 (it is 3)"),
                (4, false, "set Configuration.migrationBlock"),
            ]
            for (version, block, advice) in attempts {
                var config = Configuration(path: scratch.file, objectTypes: types, schemaVersion: version)
                if block { config.migrationBlock = { _, _ in } }
                let expected = DatabaseError.migrationRequired(type: "Pet", property: property, change: change,
                                                               storedVersion: 3, configuredVersion: version, hasBlock: block)
                #expect(throws: expected) { _ = try Database(configuration: config) }
                #expect(expected.description.hasPrefix("Pet.\(property): "))
                #expect(expected.description.hasSuffix("this change needs a migration: \(advice)"), "\(expected)")
                #expect(try Self.bytes(scratch) == before, "\(change)")
            }
            // The old application still opens it.
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsV1.types, schemaVersion: 3))
            #expect(db.objects(PetsV1.Pet.self).count == 3)
        }
    }

    @Test func aLowerSchemaVersionDoesNotOpen() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        do { _ = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsV1.types, schemaVersion: 2)) }
        #expect(try Self.storedVersion(scratch) == 2)
        let before = try Self.bytes(scratch)
        for version: UInt64 in [0, 1] {
            let config = Configuration(path: scratch.file, objectTypes: PetsV1.types, schemaVersion: version)
            #expect(throws: DatabaseError.schemaVersionTooLow(configured: version, stored: 2)) { _ = try Database(configuration: config) }
        }
        #expect(DatabaseError.schemaVersionTooLow(configured: 1, stored: 2).description.contains("schema version 2, higher than the configuration's schemaVersion 1"))
        #expect(try Self.bytes(scratch) == before)
    }

    // MARK: with a migration block

    static func converting(_ scratch: Scratch, runs: Box<Int>) -> Configuration {
        Configuration(path: scratch.file, objectTypes: PetsConverted.types, schemaVersion: 1) { migration, oldVersion in
            runs.update { $0 += 1 }
            #expect(oldVersion == 0 && migration.oldSchemaVersion == 0 && migration.newSchemaVersion == 1)
            try migration.renameProperty(onType: "Pet", from: "tags", to: "labels")
            try migration.enumerateObjects(ofType: "Pet") { old, new in
                let name = try #require(old["name"] as? String)
                let parts = name.split(separator: " ")
                new["given"] = String(parts[0])
                new["family"] = parts.count > 1 ? String(parts[1]) : nil
                let age = try #require(old["age"] as? Int)
                new["age"] = "\(age) years"
                // Links read as the target's old object, lists as arrays.
                let keeper = try #require(old["keeper"] as? MigrationObject)
                #expect(keeper.objectType == "Keeper" && keeper["name"] as? String == "K")
                #expect((old["tags"] as? [Any?])?.count == (old["id"] as? Int))
                // The new side reads what the object will hold.
                #expect(new["given"] as? String == String(parts[0]))
                #expect((new["labels"] as? [Any?])?.count == (old["id"] as? Int))
            }
        }
    }

    @Test func aBlockConvertsRenamesAndRemoves() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        let runs = Box(0)
        let config = Self.converting(scratch, runs: runs)
        do {
            let db = try Database(configuration: config)
            let pets = db.objects(PetsConverted.Pet.self)
            #expect(pets.map(\.given) == ["Rex", "Tom", "Ada"])
            #expect(pets.map(\.family) == ["Smith", nil, "Lovelace"])
            #expect(pets.map(\.age) == ["3 years", "5 years", "7 years"])
            #expect(pets.map { Array($0.labels) } == [["R0"], ["T0", "T1"], ["A0", "A1", "A2"]])
            #expect(pets.map { $0.keeper?.name } == ["K", "K", "K"])
            #expect(try pets.where { $0.given == "Ada" }.map(\.id) == [3])
        }
        #expect(runs.value == 1)
        #expect(try Self.count(scratch, "list.Pet.tags") == nil)
        #expect(try Self.count(scratch, "list.Pet.labels") == 6)
        #expect(try Self.count(scratch, "idx.Pet.given") == 3)
        #expect(try Self.storedVersion(scratch) == 1)
        // Opening again runs nothing.
        do { _ = try Database(configuration: config) }
        #expect(runs.value == 1)
        try Self.verify(scratch)
    }

    @Test func aBlockSetsListsAndLinks() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        let config = Configuration(path: scratch.file, objectTypes: PetsConverted.types, schemaVersion: 1) { migration, _ in
            var rex: MigrationObject?
            try migration.enumerateObjects(ofType: "Pet") { old, new in
                new["given"] = old["name"]
                switch old["id"] as? Int {
                case 1: rex = old
                case 2: new["labels"] = ["new", "labels"]
                case 3:
                    new["keeper"] = nil
                    #expect(throws: DatabaseError.typeMismatch(type: "Pet", property: "labels", expected: "String", found: "nil")) {
                        try new.set([nil] as [String?], for: "labels")
                    }
                    #expect(throws: DatabaseError.typeMismatch(type: "Pet", property: "keeper", expected: "Keeper?", found: "Pet")) {
                        try new.set(try #require(rex), for: "keeper")
                    }
                default: break
                }
            }
            var pets: [MigrationObject] = []
            try migration.enumerateObjects(ofType: "Pet") { old, _ in pets.append(old) }
            try migration.enumerateObjects(ofType: "Keeper") { _, new in new["pets"] = Array(pets.reversed()) as [Any] }
        }
        do {
            let db = try Database(configuration: config)
            let pets = db.objects(PetsConverted.Pet.self)
            #expect(pets.map(\.given) == ["Rex Smith", "Tom", "Ada Lovelace"])
            #expect(pets.map { Array($0.labels) } == [[], ["new", "labels"], []])  // tags were not renamed: gone
            #expect(pets.map { $0.keeper?.id } == [1, 1, nil])
        }
        #expect(try Self.count(scratch, "list.Keeper.pets") == 3)
        do {
            // Back to a name, now the primary key: the keeper's list follows the new keys.
            let rekeyed = Configuration(path: scratch.file, objectTypes: PetsRekeyed.types, schemaVersion: 2) { migration, _ in
                try migration.enumerateObjects(ofType: "Pet") { old, new in new["name"] = old["given"] }
            }
            let db = try Database(configuration: rekeyed)
            let keeper = try #require(try db.object(ofType: PetsRekeyed.Keeper.self, forPrimaryKey: 1))
            #expect(keeper.pets.map(\.id) == [3, 2, 1])
            #expect(keeper.pets.map(\.name) == ["Ada Lovelace", "Tom", "Rex Smith"])
            #expect(db.objects(PetsRekeyed.Pet.self).map(\.age) == [0, 0, 0])
            #expect(db.objects(PetsRekeyed.Pet.self).map { $0.keeper?.id } == [nil, 1, 1])
        }
        try Self.verify(scratch)
    }

    @Test func aChangedPropertyTheBlockDoesNotSetGetsItsDefault() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        let config = Configuration(path: scratch.file, objectTypes: PetsRetyped.types, schemaVersion: 1) { _, _ in }
        let db = try Database(configuration: config)
        let pets = db.objects(PetsRetyped.Pet.self)
        #expect(pets.map(\.age) == ["", "", ""])
        #expect(pets.map(\.name) == ["Rex Smith", "Tom", "Ada Lovelace"])
    }

    @Test func removedPropertiesLoseTheirDataAndTrees() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        #expect(try Self.count(scratch, "list.Pet.tags") == 6)
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsRemoved.types, schemaVersion: 1) { _, _ in })
            #expect(db.objects(PetsRemoved.Pet.self).map(\.name) == ["Rex Smith", "Tom", "Ada Lovelace"])
        }
        #expect(try Self.count(scratch, "list.Pet.tags") == nil)
        // Adding it back later does not bring the old values back.
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsV1.types, schemaVersion: 1))
            #expect(db.objects(PetsV1.Pet.self).map(\.age) == [0, 0, 0])
            #expect(db.objects(PetsV1.Pet.self).map(\.tags.count) == [0, 0, 0])
        }
        try Self.verify(scratch)
    }

    @Test func aNewPrimaryKeyRekeysObjectsAndTheLinksToThem() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsRekeyed.types, schemaVersion: 1) { _, _ in })
            let tom = try #require(try db.object(ofType: PetsRekeyed.Pet.self, forPrimaryKey: "Tom"))
            #expect(tom.age == 5 && tom.id == 2 && Array(tom.tags) == ["T0", "T1"])
            #expect(tom.keeper?.name == "K")
            let keeper = try #require(try db.object(ofType: PetsRekeyed.Keeper.self, forPrimaryKey: 1))
            #expect(keeper.pets.map(\.name) == ["Rex Smith", "Tom", "Ada Lovelace"])
            // Objects are in the new key's order.
            #expect(db.objects(PetsRekeyed.Pet.self).map(\.name) == ["Ada Lovelace", "Rex Smith", "Tom"])
        }
        try Self.verify(scratch)
    }

    @Test func aDuplicateNewPrimaryKeyCommitsNothing() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        try Self.expectNothingCommitted(scratch, types: PetsRekeyed.types,
                                        throws: .duplicatePrimaryKey(type: "Pet", property: "name", value: "\"same\"")) { migration, _ in
            try migration.enumerateObjects(ofType: "Pet") { _, new in new["name"] = "same" }
        }
    }

    @Test func droppingThePrimaryKeyGeneratesKeys() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        do {
            let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsUnkeyed.types, schemaVersion: 1) { _, _ in })
            let keeper = try #require(try db.object(ofType: PetsUnkeyed.Keeper.self, forPrimaryKey: 1))
            #expect(keeper.pets.map(\.id) == [1, 2, 3])
            #expect(db.objects(PetsUnkeyed.Pet.self).map { $0.keeper?.id } == [1, 1, 1])
            try db.write {
                let pet = PetsUnkeyed.Pet()
                pet.id = 4
                try db.add(pet)
            }
        }
        #expect(try StoredKeys.keys(scratch.file, "obj.Pet") == [1, 2, 3, 4])
        #expect(try StoredKeys.nextKeyMark(scratch.file, "Pet") == 5)
        try Self.verify(scratch)
    }

    @Test func aThrowingBlockCommitsNothing() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        try Self.expectNothingCommitted(scratch, types: PetsConverted.types,
                                        throws: .migrationBlockFailed(oldVersion: 0, newVersion: 1, error: "the block refused")) { migration, _ in
            try migration.enumerateObjects(ofType: "Pet") { _, new in new["given"] = "x" }
            throw Refused()
        }
        let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: PetsV1.types))
        #expect(db.objects(PetsV1.Pet.self).map(\.name) == ["Rex Smith", "Tom", "Ada Lovelace"])
    }

    @Test func aValueOfTheWrongTypeNamesTheProperty() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        let before = try Self.bytes(scratch)
        let expected = DatabaseError.typeMismatch(type: "Pet", property: "age", expected: "String", found: "Int")
        let subscripted = Configuration(path: scratch.file, objectTypes: PetsConverted.types, schemaVersion: 1) { migration, _ in
            try migration.enumerateObjects(ofType: "Pet") { old, new in new["age"] = old["age"] }
        }
        #expect(throws: expected) { _ = try Database(configuration: subscripted) }
        let thrown = Configuration(path: scratch.file, objectTypes: PetsConverted.types, schemaVersion: 1) { migration, _ in
            try migration.enumerateObjects(ofType: "Pet") { _, new in
                #expect(throws: expected) { try new.set(5, for: "age") }
                #expect(throws: DatabaseError.unknownProperty(type: "Pet", property: "name")) { try new.set("x", for: "name") }
            }
            #expect(throws: DatabaseError.invalidMigration(type: "Pet", property: "labels",
                                                          detail: "tags or labels was renamed already (rename each property once)")) {
                try migration.renameProperty(onType: "Pet", from: "tags", to: "labels")
                try migration.renameProperty(onType: "Pet", from: "tags", to: "labels")
            }
            throw Refused()
        }
        #expect(throws: DatabaseError.self) { _ = try Database(configuration: thrown) }
        #expect(try Self.bytes(scratch) == before)
    }

    @Test func concurrentOpensMigrateOnce() throws {
        let scratch = Scratch()
        try Self.seed(scratch)
        let runs = Box(0)
        let config = Self.converting(scratch, runs: runs)
        let given = Box<[[String]]>([])
        let failures = Box<[String]>([])
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<3 {
            let thread = Thread {
                start.wait()
                do {
                    let db = try Database(configuration: config)
                    let names = db.objects(PetsConverted.Pet.self).map(\.given)
                    given.update { $0.append(names) }
                } catch {
                    failures.update { $0.append("\(error)") }
                }
                group.leave()
            }
            thread.name = "opener \(index)"
            group.enter()
            thread.start()
        }
        for _ in 0..<3 { start.signal() }
        group.wait()
        #expect(failures.value.isEmpty, "\(failures.value)")
        #expect(given.value == Array(repeating: ["Rex", "Tom", "Ada"], count: 3))
        #expect(runs.value == 1)
        #expect(try Self.storedVersion(scratch) == 1)
    }
}
