import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// Inverse relationships as Realm declares them
/// (`@Persisted(originProperty:) var dogs: LinkingObjects<Dog>`): computed
/// by a query of the origin type, live, observable, never stored.
@Suite struct LinkingObjectsTests {
    final class Owner: Object {
        @Persisted(originProperty: "owner") var pets: LinkingObjects<Pet>
        @Persisted(primaryKey: true) var name = ""
        @Persisted(originProperty: "walkers") var walked: LinkingObjects<Pet>
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var age = 0
        @Persisted var owner: Owner?
        @Persisted var walkers = List<Owner>()
    }

    /// The file's view of Owner: no computed property.
    enum Plain {
        final class Owner: Object {
            @Persisted(primaryKey: true) var name = ""
        }
    }

    enum Broken {
        final class Pet: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var owner: Owner?
            @Persisted var walkers = List<Owner>()
        }
        /// Names a property Pet does not have.
        final class Owner: Object {
            @Persisted(primaryKey: true) var name = ""
            @Persisted(originProperty: "keeper") var pets: LinkingObjects<Pet>
        }
        /// Names a property that is not a link.
        final class Counter: Object {
            @Persisted(originProperty: "id") var pets: LinkingObjects<Pet>
        }
        /// Declared without an origin.
        final class Bare: Object {
            @Persisted var pets = LinkingObjects<Pet>._persistedDefault
        }
    }

    static func configuration(_ scratch: Scratch) -> Configuration { scratch.configuration([Owner.self, Pet.self]) }

    static func pet(_ id: Int, age: Int = 1, owner: Owner? = nil) -> Pet {
        let pet = Pet()
        pet.id = id
        pet.age = age
        pet.owner = owner
        return pet
    }

    static func owner(_ name: String) -> Owner {
        let owner = Owner()
        owner.name = name
        return owner
    }

    @Test func anObjectsLinkingObjectsAreTheObjectsWhoseLinkNamesItAndFollowEveryCommit() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Self.owner("Ann"), ben = Self.owner("Ben")
        try db.write {
            try db.add(Self.pet(1, owner: ann))
            try db.add(Self.pet(2, age: 5, owner: ann))
            try db.add(Self.pet(3, owner: ben))
            try db.add(Self.pet(4))
        }
        let pets = ann.pets
        #expect(pets.map(\.id) == [1, 2] && pets.count == 2 && ben.pets.map(\.id) == [3])
        try db.write {
            try db.object(ofType: Pet.self, forPrimaryKey: 3)?.owner = ann
            try db.object(ofType: Pet.self, forPrimaryKey: 1).map { try db.delete($0) }
        }
        // The same value, live: it reads the instance's version at each use.
        #expect(pets.map(\.id) == [2, 3] && ben.pets.isEmpty)
        #expect(try ann.pets.where { $0.age > 2 }.map(\.id) == [2])
        #expect(try ann.pets.sorted(by: \.age, ascending: false).map(\.id) == [2, 3])
        #expect(try ann.pets.asResults().max(of: \.age) == 5)
    }

    @Test func aListOfObjectsLinksAsWell() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Self.owner("Ann"), ben = Self.owner("Ben")
        try db.write {
            for id in 1...3 { try db.add(Self.pet(id)) }
            try db.add(ann)
            try db.add(ben)
            try db.object(ofType: Pet.self, forPrimaryKey: 1)?.walkers.append(contentsOf: [ann, ben])
            try db.object(ofType: Pet.self, forPrimaryKey: 3)?.walkers.append(ann)
        }
        #expect(ann.walked.map(\.id) == [1, 3] && ben.walked.map(\.id) == [1] && ann.pets.isEmpty)
        try db.write { try db.object(ofType: Pet.self, forPrimaryKey: 1)?.walkers.remove(at: 0) }
        #expect(ann.walked.map(\.id) == [3])
    }

    @Test func observersHearObjectsStartAndStopLinkingHere() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Self.owner("Ann")
        try db.write { try db.add(Self.pet(1, owner: ann)) }
        let heard = Box<[String]>([])
        let token = try ann.pets.observe { change in
            switch change {
            case let .initial(pets): heard.value.append("initial \(pets.map(\.id))")
            case let .update(pets, deletions, insertions, _): heard.value.append("\(pets.map(\.id)) -\(deletions) +\(insertions)")
            case let .error(error): heard.value.append("\(error)")
            }
        }
        try db.write { try db.add(Self.pet(2, owner: ann)) }
        try db.write { try db.object(ofType: Pet.self, forPrimaryKey: 1)?.owner = nil }
        try db.write { try db.add(Self.pet(3)) }  // links nowhere: not heard
        token.invalidate()
        #expect(heard.value == ["initial [1]", "[1, 2] -[] +[1]", "[2] -[0] +[]"])
    }

    @Test func aFrozenObjectsLinkingObjectsAreFrozenAtItsVersion() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Self.owner("Ann")
        try db.write { try db.add(Self.pet(1, owner: ann)) }
        let frozen = try ann.freeze()
        try db.write { try db.add(Self.pet(2, owner: ann)) }
        #expect(frozen.pets.isFrozen && frozen.pets.map(\.id) == [1])
        #expect(!ann.pets.isFrozen && ann.pets.count == 2)
    }

    @Test func anUnmanagedObjectsLinkingObjectsAreEmpty() {
        let ann = Self.owner("Ann")
        #expect(ann.pets.isEmpty && ann.pets.originProperty == "owner" && Array(ann.pets).isEmpty)
        #expect(throws: DatabaseError.unmanagedObject(type: "LinkingObjects<Pet>", operation: "query its objects")) {
            try ann.pets.asResults()
        }
    }

    /// The file's schema of Owner is its stored properties alone: the class
    /// without the computed ones opens it as it is (no write, no migration),
    /// and so does the class with them.
    @Test func theyAreNotStoredSoAddingOrRemovingThemNeedsNoMigration() throws {
        let scratch = Scratch()
        let version = try onNewThread { () throws -> UInt64 in
            let plain = try Database(configuration: scratch.configuration([Plain.Owner.self, Pet.self]))
            try plain.write {
                let ann = Plain.Owner()
                ann.name = "Ann"
                try plain.add(ann)
            }
            return plain.version
        }
        let db = try Database(configuration: Self.configuration(scratch))
        #expect(db.version == version)
        try db.write { try db.add(Self.pet(1, owner: try db.object(ofType: Owner.self, forPrimaryKey: "Ann"))) }
        #expect(try db.object(ofType: Owner.self, forPrimaryKey: "Ann")?.pets.map(\.id) == [1])
        let reopened = try onNewThread { () throws -> UInt64 in
            let plain = try Database(configuration: scratch.configuration([Plain.Owner.self, Pet.self]))
            return plain.version
        }
        #expect(reopened == db.version)
    }

    @Test func aBadOriginIsRefusedWhenTheDatabaseOpens() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.invalidSchema(type: "Owner", detail: "pets links from Pet.keeper, which Pet does not store")) {
            _ = try Database(configuration: scratch.configuration([Broken.Owner.self, Broken.Pet.self]))
        }
        #expect(throws: DatabaseError.invalidSchema(type: "Counter", detail: "pets links from Pet.id, which is not a link or a list of Counter objects")) {
            _ = try Database(configuration: scratch.configuration([Broken.Counter.self, Broken.Pet.self]))
        }
        #expect(throws: DatabaseError.invalidSchema(type: "Owner", detail: "pets links from Pet, which is not in the configuration's objectTypes")) {
            _ = try Database(configuration: scratch.configuration([Owner.self]))
        }
        #expect(throws: DatabaseError.invalidSchema(
            type: "Bare", detail: "property pets is LinkingObjects, which is declared with @Persisted(originProperty:) only")) {
            _ = try Database(configuration: scratch.configuration([Broken.Bare.self, Broken.Pet.self]))
        }
    }

    /// Ann has pets aged 1 and 7, Ben one aged 2, Cy none; pet 9 (age 8) has no owner.
    static func petsOfThree(_ db: Database) throws {
        let ann = owner("Ann"), ben = owner("Ben")
        try db.write {
            try db.add(owner("Cy"))
            try db.add(pet(1, age: 1, owner: ann))
            try db.add(pet(2, age: 7, owner: ann))
            try db.add(pet(3, age: 2, owner: ben))
            try db.add(pet(9, age: 8))
        }
    }

    static func names(_ results: Results<Owner>) -> [String] { results.map(\.name).sorted() }

    /// Realm's `ANY pets.age > 5`, `pets.@count`: a condition through a
    /// `LinkingObjects` property holds for some object linking here (false
    /// with none), `allSatisfy` for every one (true with none), as a list's.
    @Test func aQueryThroughLinkingObjectsAsksSomeOrEveryObjectLinkingHere() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try Self.petsOfThree(db)
        let owners = db.objects(Owner.self)
        #expect(Self.names(try owners.where { $0.pets.age > 5 }) == ["Ann"])
        #expect(Self.names(try owners.where { $0.pets.age > 0 }) == ["Ann", "Ben"])
        #expect(Self.names(try owners.where { $0.pets.allSatisfy { $0.age < 5 } }) == ["Ben", "Cy"])
        #expect(Self.names(try owners.where { $0.pets.contains { $0.age > 1 && $0.age < 5 } }) == ["Ben"])
        #expect(Self.names(try owners.where { $0.pets.count >= 2 }) == ["Ann"])
        #expect(Self.names(try owners.where { $0.pets.count == 1 }) == ["Ben"])
        #expect(Self.names(try owners.where { $0.pets.isEmpty }) == ["Cy"])
        #expect(Self.names(try owners.where { !($0.pets.age > 5) }) == ["Ben", "Cy"])
        // With the owner's own properties, either way round.
        #expect(Self.names(try owners.where { $0.name != "Ben" && $0.pets.age < 5 }) == ["Ann"])
        #expect(Self.names(try owners.where { $0.pets.age == 2 || $0.name == "Cy" }) == ["Ben", "Cy"])
        // Through a link: pets whose owner has a pet older than 5.
        #expect(try db.objects(Pet.self).where { $0.owner.pets.age > 5 }.map(\.id) == [1, 2])
        // Live: the same results follow the commits that change the pets.
        let old = try owners.where { $0.pets.age > 5 }
        try db.write {
            try db.object(ofType: Pet.self, forPrimaryKey: 9)?.owner = try db.object(ofType: Owner.self, forPrimaryKey: "Cy")
            try db.object(ofType: Pet.self, forPrimaryKey: 2)?.age = 3
        }
        #expect(Self.names(old) == ["Cy"])
        #expect(Self.names(try owners.where { $0.pets.isEmpty }).isEmpty)
    }

    /// A list origin: each object whose list holds the owner counts once
    /// (however often it holds it).
    @Test func aQueryThroughLinkingObjectsOfAListCountsEachListOnce() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let ann = Self.owner("Ann"), ben = Self.owner("Ben")
        try db.write {
            for owner in [ann, ben, Self.owner("Cy")] { try db.add(owner) }
            let young = Self.pet(1, age: 1), old = Self.pet(2, age: 9)
            try young.walkers.append(contentsOf: [ann, ben])
            try old.walkers.append(contentsOf: [ann, ann])
            try db.add(young)
            try db.add(old)
        }
        let owners = db.objects(Owner.self)
        #expect(Self.names(try owners.where { $0.walked.age > 5 }) == ["Ann"])
        #expect(Self.names(try owners.where { $0.walked.count == 2 }) == ["Ann"])
        #expect(Self.names(try owners.where { $0.walked.allSatisfy { $0.age < 5 } }) == ["Ben", "Cy"])
        #expect(Self.names(try owners.where { $0.walked.isEmpty }) == ["Cy"])
        // Two LinkingObjects properties in one condition.
        #expect(Self.names(try owners.where { $0.walked.age < 5 && $0.pets.isEmpty }) == ["Ann", "Ben"])
        try db.write { try db.object(ofType: Pet.self, forPrimaryKey: 2)?.walkers.removeAll() }
        #expect(Self.names(try owners.where { $0.walked.count == 2 }).isEmpty)
        #expect(Self.names(try owners.where { $0.walked.age > 0 }) == ["Ann", "Ben"])
    }

    @Test func aFrozenQueryThroughLinkingObjectsReadsItsVersion() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try Self.petsOfThree(db)
        let frozen = try db.objects(Owner.self).where { $0.pets.age > 5 }.freeze()
        let frozenDatabase = try db.freeze()
        try db.write { try db.object(ofType: Pet.self, forPrimaryKey: 3)?.age = 6 }
        #expect(frozen.isFrozen && Self.names(frozen) == ["Ann"])
        #expect(Self.names(try frozenDatabase.objects(Owner.self).where { $0.pets.age > 5 }) == ["Ann"])
        #expect(Self.names(try db.objects(Owner.self).where { $0.pets.age > 5 }) == ["Ann", "Ben"])
    }

    /// The results read the pets: a pet's change that moves its owner in
    /// or out is heard by the owners' results.
    @Test func anObserverOfAQueryThroughLinkingObjectsHearsThePetsChange() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try Self.petsOfThree(db)
        let heard = Box<[String]>([])
        let token = try db.objects(Owner.self).where { $0.pets.age > 5 }.observe { change in
            switch change {
            case let .initial(owners): heard.value.append("initial \(owners.map(\.name))")
            case let .update(owners, _, _, _): heard.value.append("\(owners.map(\.name))")
            case let .error(error): heard.value.append("\(error)")
            }
        }
        try db.write { try db.object(ofType: Pet.self, forPrimaryKey: 3)?.age = 6 }
        try db.write { try db.object(ofType: Pet.self, forPrimaryKey: 2)?.owner = nil }
        token.invalidate()
        #expect(heard.value == ["initial [\"Ann\"]", "[\"Ann\", \"Ben\"]", "[\"Ben\"]"])
    }

    /// Only a `LinkingObjects` key path goes through; by name the property is not stored.
    @Test func aLinkingObjectsPropertyByNameIsUnknown() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        #expect(throws: DatabaseError.unknownProperty(type: "Owner", property: "pets")) {
            try db.objects(Owner.self).where { $0["pets"] == 1 }
        }
    }

    /// An app's `main.swift` (firn-sdk-client): a query through the inverse
    /// relationship, and a results observer hearing a change inside an
    /// embedded object, made on another thread, as its owner's modification.
    @Test func anAppQueriesThroughTheInverseAndHearsEmbeddedChanges() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("linking", database: scratch.file)
        #expect(!outcome.crashed && outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == [
            "tagged urgent: [1]", "untagged: [2]", "initial: 2 notes", "update: -[] +[] ~[0]",
        ], "\(outcome.stdout)")
    }
}
