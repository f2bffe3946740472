import Firn
import FirnCore
import Foundation
import Testing

/// Links (`@Persisted var owner: Person?`): stored as the target's key,
/// read as the live (or frozen) target, nil once it is deleted; adding an
/// object adds the unmanaged objects it links to, as `add` would.
@Suite struct LinkTests {
    /// Adds a person, Ali, and dog 1, Rex, not linked.
    static func addAliAndRex(_ db: Database) throws -> (Person, Dog) {
        let ali = Person("Ali")
        let rex = Dog(1)
        try db.write {
            try db.add(ali)
            try db.add(rex)
        }
        return (ali, rex)
    }

    @Test func addingAnObjectAddsTheUnmanagedObjectItLinksTo() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        let rex = Dog(1, "Rex", owner: ali)
        try db.write { try db.add(rex) }
        #expect(db.objects(Person.self).count == 1)
        #expect(rex.owner?.name == "Ali")
        #expect(ali.isInvalidated == false && ali.isFrozen == false)
        // The unmanaged person became the live, stored one.
        try db.write { ali.name = "Ali B." }
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1)?.owner?.name == "Ali B.")
    }

    @Test func aLinkReadsNilOnceItsTargetIsDeleted() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        let rex = Dog(1, owner: ali)
        try db.write { try db.add(rex) }
        try db.write { try db.delete(ali) }
        #expect(rex.owner == nil)
        #expect(Dog(2).owner == nil)
    }

    @Test func settingALinkInAWrite() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (ali, rex) = try Self.addAliAndRex(db)
        #expect(rex.owner == nil)
        try db.write { rex.owner = ali }
        #expect(rex.owner?.name == "Ali")
        try db.write { rex.owner = Person("Bea") }  // unmanaged: added with the link
        #expect(rex.owner?.name == "Bea" && db.objects(Person.self).count == 2)
        try db.write { rex.owner = nil }
        #expect(rex.owner == nil && db.objects(Person.self).count == 2)
    }

    @Test func cascadeAddFollowsTheUpdatePolicy() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let id = UUID()
        try db.write { try db.add(Person("Ali", id: id)) }
        // Same primary key as the stored person: `.error` refuses it…
        try db.beginWrite()
        #expect(throws: DatabaseError.duplicatePrimaryKey(type: "Person", property: "id", value: ObjectKey.uuidString(Self.bytes(id)))) {
            try db.add(Dog(1, owner: Person("Ali 2", id: id)))
        }
        db.cancelWrite()
        #expect(db.objects(Dog.self).count == 0)
        // …and `.modified` replaces it, as adding the person itself would.
        try db.write { try db.add(Dog(1, owner: Person("Ali 2", id: id)), update: .modified) }
        #expect(db.objects(Person.self).count == 1)
        #expect(try db.object(ofType: Person.self, forPrimaryKey: id)?.name == "Ali 2")
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1)?.owner?.name == "Ali 2")
    }

    static func bytes(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }

    @Test func cyclesOfUnmanagedObjectsAreAddedOnce() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let a = Person("A")
        let b = Person("B")
        a.bestFriend = b
        b.bestFriend = a
        a.bestFriend?.bestFriend = a  // unmanaged: plain stored values
        try db.write { try db.add(a) }
        #expect(db.objects(Person.self).count == 2)
        #expect(a.bestFriend?.name == "B" && a.bestFriend?.bestFriend?.name == "A")
        #expect(b.bestFriend?.bestFriend?.bestFriend?.name == "A")
    }

    @Test func aFrozenObjectsLinksAreFrozen() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let rex = Dog(1, owner: Person("Ali"))
        try db.write { try db.add(rex) }
        let frozen = try rex.freeze()
        let owner = try #require(frozen.owner)
        #expect(owner.isFrozen && owner.name == "Ali")
        try db.write { rex.owner?.name = "changed" }
        #expect(frozen.owner?.name == "Ali")
        #expect(rex.owner?.name == "changed")
    }

    @Test func linkingAFrozenObjectFailsTheCommitAndSaysToThaw() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let (ali, rex) = try Self.addAliAndRex(db)
        let frozenAli = try ali.freeze()
        try db.beginWrite()
        rex.owner = frozenAli
        #expect(throws: DatabaseError.frozen(type: "Person", operation: "link it from Dog.owner")) { try db.commitWrite() }
        #expect(DatabaseError.frozen(type: "Person", operation: "link it from Dog.owner").description.contains("thaw() it first"))
        #expect(rex.owner == nil)
        try db.write { rex.owner = try frozenAli.thaw() }
        #expect(rex.owner?.name == "Ali")
    }

    @Test func addingAnObjectLinkedToAFrozenOneThrows() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let ali = Person("Ali")
        try db.write { try db.add(ali) }
        let frozenAli = try ali.freeze()
        try db.beginWrite()
        #expect(throws: DatabaseError.frozen(type: "Person", operation: "add Dog")) {
            try db.add(Dog(1, owner: frozenAli))
        }
        db.cancelWrite()
    }

    @Test func linksSurviveReopening() throws {
        let scratch = Scratch()
        let id = UUID()
        do {
            let db = try Database(configuration: scratch.configuration())
            try db.write { try db.add(Dog(4, owner: Person("Kept", id: id))) }
        }
        let db = try Database(configuration: scratch.configuration())
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 4)?.owner?.id == id)
    }

    @Test func aLinkMustBeOptional() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.invalidSchema(
            type: "RequiredLink", detail: "type RequiredLink: property owner is a link and must be optional (it reads nil once its target is deleted)")) {
            _ = try Database(configuration: scratch.configuration([RequiredLink.self, Person.self, Dog.self]))
        }
    }

    @Test func aLinkToATypeOutsideTheConfigurationIsAnInvalidSchema() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.invalidSchema(
            type: "Dog", detail: "property owner links to Person, which is not in the configuration's objectTypes")) {
            _ = try Database(configuration: scratch.configuration([Dog.self]))
        }
    }

    @Test func theSchemaRecordsTheLinkTarget() throws {
        let scratch = Scratch()
        do { _ = try Database(configuration: scratch.configuration()) }
        let store = try Store.open(scratch.file)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let value = try #require(try snapshot.tree("sys.schema")?.get(Array("Dog".utf8)))
        let schema = try ObjectSchema.decode(name: "Dog", value.bytes)
        #expect(schema.properties.last == PropertySchema(name: "owner", type: .object, isOptional: true, objectType: "Person"))
        #expect(schema.properties.last?.description == "owner: Person?")
    }
}
