import Firn
import FirnCore
import Foundation
import Testing

/// `autorefresh` as docs/SDK.md defines it without a run loop: an instance
/// stays on its version while it is used (every read in between sees one
/// version), moves to the latest when it is asked for again, and every
/// write starts at the latest version whatever the setting.
@Suite struct AutorefreshTests {
    /// Another thread adds a dog (its own instance, gone afterwards).
    static func commitElsewhere(_ configuration: Configuration, id: Int) throws {
        try onNewThread {
            let other = try Database(configuration: configuration)
            let dog = Dog()
            dog.id = id
            try other.write { try other.add(dog) }
        }
    }

    @Test func isOnByDefault() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        #expect(db.autorefresh)
        #expect(try !db.freeze().autorefresh)
    }

    @Test func usingAnInstanceDoesNotMoveIt() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let dogs = db.objects(Dog.self)
        let version = db.version
        try Self.commitElsewhere(configuration, id: 1)
        #expect(dogs.count == 0 && db.objects(Dog.self).isEmpty)
        #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1) == nil)
        #expect(db.version == version)
    }

    @Test func anInstanceAskedForAgainMovesToTheLatestVersion() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        let dogs = db.objects(Dog.self)
        try Self.commitElsewhere(configuration, id: 1)
        let again = try Database(configuration: configuration)
        #expect(again.version == db.version)  // one instance
        #expect(dogs.count == 1)  // live results follow it
    }

    @Test func withAutorefreshOffItStaysUntilRefreshed() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        db.autorefresh = false
        let version = db.version
        try Self.commitElsewhere(configuration, id: 1)
        let again = try Database(configuration: configuration)
        #expect(!again.autorefresh && again.version == version && again.objects(Dog.self).isEmpty)
        #expect(try db.refresh())
        #expect(db.objects(Dog.self).count == 1)
    }

    @Test func aWriteAlwaysStartsAtTheLatestVersion() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        db.autorefresh = false
        try Self.commitElsewhere(configuration, id: 1)
        try db.beginWrite()
        #expect(db.objects(Dog.self).count == 1)
        db.cancelWrite()
        // It stays on the version the write started from.
        #expect(db.objects(Dog.self).count == 1)
    }

    @Test func aQueueBoundInstanceAskedForAgainMovesToo() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "firn-bg")
        let db = try onQueue(queue) { try Database(configuration: configuration, queue: queue) }
        try Self.commitElsewhere(configuration, id: 1)
        let (stayed, moved) = try onQueue(queue) { () throws -> (Int, Int) in
            let stayed = db.objects(Dog.self).count
            return (stayed, try Database(configuration: configuration, queue: queue).objects(Dog.self).count)
        }
        #expect(stayed == 0 && moved == 1)
    }
}
