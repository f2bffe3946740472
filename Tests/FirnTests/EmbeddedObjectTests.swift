import FirnCore
import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// Embedded objects as an app uses them: held by one link or list element
/// of their owner, added and deleted with it, replaced (deleted) when the
/// property is assigned, frozen and observed with it; refused on their own.
@Suite struct EmbeddedObjectTests {
    final class Geo: EmbeddedObject {
        @Persisted var lat = 0.0
        @Persisted var lon = 0.0
    }

    final class Address: EmbeddedObject {
        @Persisted var street = ""
        @Persisted var city = ""
        @Persisted var geo: Geo?   // nested: an embedded object's own embedded object
    }

    final class Contact: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var address: Address?
        @Persisted var previous = List<Address>()
    }

    static func configuration(_ scratch: Scratch) -> Configuration {
        scratch.configuration([Contact.self, Address.self, Geo.self])
    }

    static func address(_ city: String, lat: Double? = nil) -> Address {
        let address = Address()
        address.street = "1 Main St"
        address.city = city
        if let lat {
            let geo = Geo()
            geo.lat = lat
            address.geo = geo
        }
        return address
    }

    static func contact(_ id: Int, _ city: String, previous: [String] = []) throws -> Contact {
        let contact = Contact()
        contact.id = id
        contact.name = "c\(id)"
        contact.address = address(city, lat: Double(id))
        try contact.previous.append(contentsOf: previous.map { address($0) })
        return contact
    }

    /// Contacts 1 (Oslo, previous A) and 2 (Paris, previous B), added.
    static func osloAndParis(_ db: Database) throws -> (Contact, Contact) {
        try db.write {
            try db.add(try contact(1, "Oslo", previous: ["A"]))
            try db.add(try contact(2, "Paris", previous: ["B"]))
        }
        return (try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1)), try #require(try db.object(ofType: Contact.self, forPrimaryKey: 2)))
    }

    /// The number of stored objects of an embedded type (`objects(_:)` refuses them).
    static func stored(_ scratch: Scratch, _ type: String) throws -> UInt64 {
        try MigrationTests.count(scratch, "obj." + type) ?? 0
    }

    @Test func addingTheOwnerAddsItsEmbeddedObjectsWhichReadLiveFrozenAndInQueries() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write {
            try db.add(try Self.contact(1, "Oslo", previous: ["Bergen", "Tromsø"]))
            try db.add(try Self.contact(2, "Paris"))
        }
        let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
        #expect(one.address?.city == "Oslo" && one.address?.geo?.lat == 1)
        #expect(one.previous.map(\.city) == ["Bergen", "Tromsø"])
        // A query through the link, as through any link.
        #expect(try db.objects(Contact.self).where { $0.address.city == "Paris" }.map(\.id) == [2])
        // Frozen with its owner: the frozen copy keeps the old value.
        let frozen = try one.freeze()
        try db.write { one.address?.city = "Oslo S" }
        #expect(frozen.address?.city == "Oslo" && frozen.address?.isFrozen == true && frozen.previous.first?.isFrozen == true)
        #expect(one.address?.city == "Oslo S")
        // Its thread-safe reference resolves to the same embedded object.
        let reference = try ThreadSafeReference(to: try #require(one.address))
        #expect(try db.resolve(reference)?.city == "Oslo S")
        #expect(try Self.stored(scratch, "Address") == 4 && Self.stored(scratch, "Geo") == 2)
    }

    @Test func anEmbeddedObjectCannotBeAddedAloneNorGivenASecondOwner() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        #expect(throws: DatabaseError.self) { try db.write { try db.add(Self.address("Oslo")) } }
        try db.write { try db.add(try Self.contact(1, "Oslo")) }
        let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
        do {
            try db.write {
                let two = Contact()
                two.id = 2
                two.address = one.address   // already owned by contact 1
                try db.add(two)
            }
            Issue.record("a second owner was accepted")
        } catch let DatabaseError.embeddedObject(type, operation) {
            #expect(type == "Address" && operation.contains("already has an owner"), "\(operation)")
        }
        do {
            try db.write { try one.previous.append(try #require(one.address)) }
            Issue.record("a list element with an owner was accepted")
        } catch DatabaseError.embeddedObject {}
        #expect(db.objects(Contact.self).count == 1 && one.previous.isEmpty && one.address?.city == "Oslo")
    }

    @Test func assigningRemovingAndReplacingDeleteTheObjectsTheyHeld() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write { try db.add(try Self.contact(1, "Oslo", previous: ["A", "B", "C"])) }
        let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
        let (old, geo) = (try #require(one.address), try #require(one.address?.geo))
        try db.write { one.address = Self.address("Rome") }
        #expect(old.isInvalidated && geo.isInvalidated && one.address?.city == "Rome")
        let (a, b, c) = (one.previous[0], one.previous[1], one.previous[2])
        try db.write { try one.previous.remove(at: 1) }
        #expect(b.isInvalidated && !a.isInvalidated && one.previous.map(\.city) == ["A", "C"])
        try db.write { try one.previous.replace(at: 0, with: Self.address("D")) }
        #expect(a.isInvalidated && one.previous.map(\.city) == ["D", "C"])
        try db.write { one.address = nil }
        try db.write { try one.previous.removeAll() }
        #expect(c.isInvalidated && one.previous.isEmpty && one.address == nil)
        #expect(try Self.stored(scratch, "Address") == 0 && Self.stored(scratch, "Geo") == 0)
        // Replacing the owner with add(update:) replaces its embedded objects too.
        try db.write { try db.add(try Self.contact(2, "Lima", previous: ["E"])) }
        try db.write { try db.add(try Self.contact(2, "Quito"), update: .modified) }
        #expect(try Self.stored(scratch, "Address") == 1 && Self.stored(scratch, "Geo") == 1)
    }

    /// Realm's self-assignment: a list (or link) assigned the embedded
    /// objects it holds keeps them, in the new order; only the ones dropped
    /// are deleted. The same object twice is still a second owner.
    @Test func assigningAListOrLinkTheEmbeddedObjectsItHoldsKeepsThem() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write { try db.add(try Self.contact(1, "Oslo", previous: ["A", "B", "C"])) }
        let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
        let (a, b, c) = (one.previous[0], one.previous[1], one.previous[2])
        try db.write { one.previous = one.previous }
        #expect(one.previous.map(\.city) == ["A", "B", "C"] && !a.isInvalidated && !b.isInvalidated && !c.isInvalidated)
        try db.write {
            let reordered = List<Address>()
            try reordered.append(contentsOf: [one.previous[2], one.previous[0], Self.address("D")])
            one.previous = reordered
        }
        #expect(one.previous.map(\.city) == ["C", "A", "D"] && b.isInvalidated && !a.isInvalidated && c.city == "C")
        let address = try #require(one.address)
        try db.write { one.address = one.address }
        #expect(!address.isInvalidated && one.address?.city == "Oslo" && one.address?.geo?.lat == 1)
        #expect(try Self.stored(scratch, "Address") == 4 && Self.stored(scratch, "Geo") == 1)
        do {
            try db.write {
                let twice = List<Address>()
                try twice.append(contentsOf: [one.previous[0], one.previous[0]])
                one.previous = twice
            }
            Issue.record("one embedded object was accepted twice")
        } catch DatabaseError.embeddedObject {}
        #expect(one.previous.map(\.city) == ["C", "A", "D"])
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test func deletingTheOwnerDeletesItsEmbeddedObjectsNestedOnesToo() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write {
            try db.add(try Self.contact(1, "Oslo", previous: ["A", "B"]))
            try db.add(try Self.contact(2, "Paris", previous: ["C"]))
        }
        let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
        let held = [try #require(one.address), one.previous[0], one.previous[1]]
        let geo = try #require(one.address?.geo)
        try db.write { try db.delete(one) }
        #expect(held.allSatisfy(\.isInvalidated) && geo.isInvalidated)
        #expect(try Self.stored(scratch, "Address") == 2 && Self.stored(scratch, "Geo") == 1)
        try db.write { try db.deleteAll() }
        #expect(try Self.stored(scratch, "Address") == 0 && Self.stored(scratch, "Geo") == 0)
    }

    @Test func theOwnersObserverHearsOfChangesInsideItsEmbeddedObjects() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let (one, two) = try Self.osloAndParis(db)
        let log = NotificationTests.Log<String>()
        let token = try one.observe { change in
            if case let .change(_, properties) = change { log.append(properties.map(\.name).joined(separator: ",")) }
        }
        try db.write { one.address?.city = "Oslo S" }           // inside the embedded object
        try db.write { one.address?.geo?.lon = 10 }             // inside a nested one
        try db.write { one.previous[0].city = "A2" }            // inside a list element
        try db.write { two.address?.city = "Paris 2"; two.previous[0].city = "B2" }  // another owner's: nothing
        try db.write { one.name = "Ann" }
        #expect(log.entries == ["address", "address", "previous", "name"])
        token.invalidate()
    }

    /// A results delivery applied to a mirror of the previous one (as a
    /// table view applies it) names, among its modifications, the owners
    /// whose embedded objects changed inside: directly, nested, in a list.
    final class ContactMirror: @unchecked Sendable {
        private let lock = NSLock()
        private var rows: [Int] = []
        private var log: [String] = []

        func apply(_ change: ResultsChange<Contact>) {
            lock.withLock {
                switch change {
                case let .initial(results): rows = results.map(\.id)
                case let .update(results, deletions, insertions, modifications):
                    let now = results.map(\.id)
                    if let problem = Self.mirror(rows, deletions, insertions, now) { log.append(problem) }
                    // Modifications are rows as they were.
                    log.append("~\(modifications.map { rows[$0] }.sorted()) +\(insertions.map { now[$0] })")
                    rows = now
                case let .error(error): log.append("\(error)")
                }
            }
        }

        var entries: [String] { lock.withLock { log } }

        /// `rows` with a delivery's deletions, then insertions, applied as a
        /// table view applies them; what is wrong when that does not give `now`.
        static func mirror(_ rows: [Int], _ deletions: [Int], _ insertions: [Int], _ now: [Int]) -> String? {
            var next = rows
            for index in deletions.sorted(by: >) where index < next.count { next.remove(at: index) }
            for index in insertions.sorted() where index <= next.count && index < now.count { next.insert(now[index], at: index) }
            return next == now ? nil : "\(rows) -\(deletions) +\(insertions) gives \(next), not \(now)"
        }
    }

    @Test func resultsObserversHearOfChangesInsideTheirObjectsEmbeddedObjects() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let (one, two) = try Self.osloAndParis(db)
        // Every contact (key order), and a query with a sort (recomputed).
        let all = ContactMirror(), sorted = ContactMirror()
        let tokens = [
            try db.objects(Contact.self).observe { all.apply($0) },
            try db.objects(Contact.self).where { $0.id > 0 }.sorted(by: \.name, ascending: false).observe { sorted.apply($0) },
        ]
        try db.write { one.address?.city = "Oslo S" }                                // inside the embedded object
        try db.write { one.address?.geo?.lon = 10 }                                  // inside a nested one
        try db.write { one.previous[0].city = "A2" }                                 // inside a list element
        try db.write { two.address?.city = "Paris 2"; two.previous[0].city = "B2" }  // another owner's
        try db.write { try db.add(try Self.contact(3, "Rome")) }                      // a new contact: no modification
        try db.write {
            try db.object(ofType: Contact.self, forPrimaryKey: 3)?.address?.geo?.lat = 5
            one.address = Self.address("Oslo N")                                      // the owner's own field
        }
        try db.write { one.previous[0].geo = Geo() }                                 // a nested object added in a list element
        for token in tokens { token.invalidate() }
        let expected = ["~[1] +[]", "~[1] +[]", "~[1] +[]", "~[2] +[]", "~[] +[3]", "~[1, 3] +[]", "~[1] +[]"]
        #expect(all.entries == expected)
        #expect(sorted.entries == expected)
    }

    /// A migration block that sets an embedded link (or list) deletes the
    /// objects it took out, nested ones too, as assigning does in a write;
    /// one it moves to another property stays. `firn verify` (its
    /// object-layer check: every embedded object has one owner) passes.
    @Test func aMigrationThatReplacesEmbeddedObjectsDeletesThem() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: Self.configuration(scratch))
            try db.write {
                try db.add(try Self.contact(1, "Oslo", previous: ["P", "Q"]))
                try db.add(try Self.contact(2, "Paris"))
                try db.add(try Self.contact(3, "Rome"))
            }
        }
        #expect(try Self.stored(scratch, "Address") == 5 && Self.stored(scratch, "Geo") == 3)
        var configuration = Self.configuration(scratch)
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                switch old["id"] as? Int {
                case 1:
                    // P moves from the list to the link; Oslo (and its Geo) goes.
                    let previous = try #require(old["previous"] as? [Any?])
                    new["address"] = previous[0]
                    new["previous"] = [previous[1]]
                case 2: try new.set(nil, for: "address")
                default: break
                }
            }
        }
        do {
            let db = try Database(configuration: configuration)
            let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
            #expect(one.address?.city == "P" && one.previous.map(\.city) == ["Q"])
            #expect(try db.object(ofType: Contact.self, forPrimaryKey: 2)?.address == nil)
            #expect(try db.object(ofType: Contact.self, forPrimaryKey: 3)?.address?.geo?.lat == 3)
        }
        #expect(try Self.stored(scratch, "Address") == 3 && Self.stored(scratch, "Geo") == 1)
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
    }

    /// `for await change in contacts.changes` on an actor, while another
    /// thread changes addresses inside contacts 1 and 2, then adds contact
    /// 3: the contacts whose addresses changed come as modifications
    /// (commits may arrive together in one element).
    actor ContactScreen {
        let configuration: Configuration
        init(_ configuration: Configuration) { self.configuration = configuration }

        func follow(writer: @escaping @Sendable () -> Void) async throws -> (modified: Set<Int>, problems: [String]) {
            let db = try await Database.open(configuration: configuration)
            var rows: [Int] = []
            var modified = Set<Int>()
            var problems: [String] = []
            for await change in db.objects(Contact.self).changes {
                switch change {
                case let .initial(results):
                    rows = results.map(\.id)
                    Thread.detachNewThread(writer)
                case let .update(results, deletions, insertions, modifications):
                    let now = results.map(\.id)
                    if let problem = ContactMirror.mirror(rows, deletions, insertions, now) { problems.append(problem) }
                    modified.formUnion(modifications.map { rows[$0] })
                    rows = now
                case let .error(error): problems.append("\(error)")
                }
                if rows.contains(3) { break }
            }
            return (modified, problems)
        }
    }

    @Test func resultsChangesCarryChangesInsideEmbeddedObjects() async throws {
        let scratch = Scratch()
        let configuration = Self.configuration(scratch)
        try onNewThread { _ = try Self.osloAndParis(try Database(configuration: configuration)) }
        let failures = Box<[String]>([])
        let followed = try await ContactScreen(configuration).follow {
            do {
                let db = try Database(configuration: configuration)
                let one = try db.object(ofType: Contact.self, forPrimaryKey: 1), two = try db.object(ofType: Contact.self, forPrimaryKey: 2)
                try db.write { one?.address?.geo?.lon = 10 }
                try db.write { two?.previous[0].city = "B2" }
                try db.write { try db.add(try Self.contact(3, "Rome")) }
            } catch {
                failures.value.append("\(error)")
            }
        }
        #expect(failures.value.isEmpty && followed.problems.isEmpty, "\(failures.value) \(followed.problems)")
        #expect(followed.modified == [1, 2])
    }

    @Test func objectsOfAnEmbeddedTypeAreRefusedAsATypeOfTheirOwn() throws {
        // `objects(Address.self)` stops the program; its message is the error's.
        let message = "\(DatabaseError.embeddedObject(type: "Address", operation: "be queried"))"
        #expect(message.contains("Address is an embedded object"))
        #expect(throws: DatabaseError.self) { try ClassInfo.of(EmbeddedWithKey.self) }
    }

    @Test func objectsOfAnEmbeddedTypeStopTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: EmbeddedObjectTests.configuration(scratch)) else { return }
            _ = db.objects(Address.self)
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Address is an embedded object"), "\(text)")
    }

    final class EmbeddedWithKey: EmbeddedObject {
        @Persisted(primaryKey: true) var id = 0
    }

    enum V1 {
        final class Contact: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var name = ""
        }
    }

    enum Flipped {   // Address top-level in a file where it was embedded
        final class Address: Object {
            @Persisted var street = ""
            @Persisted var city = ""
            @Persisted var geo: Geo?
        }
    }

    @Test func addingAnEmbeddedPropertyIsAdditiveAndATypeCannotBecomeTopLevel() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: scratch.configuration([V1.Contact.self]))
            try db.write {
                let old = V1.Contact()
                old.id = 1
                try db.add(old)
            }
        }
        // The new property, its embedded types: no schemaVersion needed.
        do {
            let db = try Database(configuration: Self.configuration(scratch))
            let one = try #require(try db.object(ofType: Contact.self, forPrimaryKey: 1))
            #expect(one.address == nil && one.previous.isEmpty)
            try db.write { one.address = Self.address("Oslo", lat: 1) }
            #expect(one.address?.geo?.lat == 1)
        }
        do {
            _ = try Database(configuration: Configuration(path: scratch.file, objectTypes: [Contact.self, Flipped.Address.self, Geo.self],
                                                          schemaVersion: 1, migrationBlock: { _, _ in }))
            Issue.record("an embedded type became top-level")
        } catch let DatabaseError.invalidMigration(type, _, detail) {
            #expect(type == "Address" && detail.contains("embedded to top-level"), "\(detail)")
        }
    }

    /// An app's `main.swift` (firn-sdk-client): a change inside an embedded
    /// object heard through its owner's `changes`; the type refused as one of its own.
    @Test func anAppHearsChangesInsideEmbeddedObjectsAndCannotQueryThemAlone() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("embedded", database: scratch.file)
        #expect(!outcome.crashed && outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == ["changed: [\"attachments\"], size 42", "attachment deleted with its note: true"],
                "\(outcome.stdout)")
        let other = Scratch()
        let refused = try SDKClient.run("embedded-objects", database: other.file)
        #expect(refused.crashed && refused.stderr.contains("Attachment is an embedded object: cannot be queried as a type of its own"),
                "\(refused.status) \(refused.stderr)")
        #expect(!refused.stdout.contains("not stopped"))
    }

    @Test func verifyAndDumpThroughTheBuiltFirn() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: Self.configuration(scratch))
            try db.write {
                for id in 1...30 { try db.add(try Self.contact(id, "city \(id)", previous: ["a\(id)", "b\(id)"])) }
            }
            try db.write {
                for contact in db.objects(Contact.self) where contact.id % 3 == 0 { try db.delete(contact) }
                for contact in db.objects(Contact.self) where contact.id % 5 == 0 { contact.address = Self.address("moved") }
            }
        }
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
        let dump = try FirnCommand.run(["dump", scratch.file, "--objects", "--type", "Address", "--limit", "1"])
        #expect(dump.status == 0 && dump.output.contains("Address: 60 objects (generated keys, embedded"), "\(dump.output)")
    }
}
