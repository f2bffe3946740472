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
}
