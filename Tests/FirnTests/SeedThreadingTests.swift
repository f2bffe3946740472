import Firn
import Foundation
import Testing
import FirnTestSupport

/// The reference documents' threading examples, adapted to our names
/// (`Database` for their realm, `try` where ours throw, waits added so a
/// test can check the outcome). Person and Dog are Models.swift's.
@Suite struct SeedThreadingTests {
    static func jane(_ db: Database) throws -> Person {
        let person = Person()
        person.name = "Jane"
        try db.write { try db.add(person) }
        return person
    }

    /// "Create a Serial Queue to use Realm on a Background Thread".
    @Test func aSerialQueue() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let outcome = Box<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Initialize a serial queue, and perform database operations on it
        let serialQueue = DispatchQueue(label: "serial-queue")
        serialQueue.async {
            defer { done.signal() }
            do {
                let db = try Database(configuration: configuration, queue: serialQueue)
                // Do something with the database on the non-main thread
                try db.write { try db.add(Dog()) }
                outcome.value = "\(db.objects(Dog.self).count)"
            } catch {
                outcome.value = "\(error)"
            }
        }
        done.wait()
        #expect(outcome.value == "1")
    }

    /// "Use ThreadSafeReference": made inside a write, resolved inside a
    /// write on a background queue (which waits for the first write's commit).
    @Test func passAnObjectWithAThreadSafeReference() throws {
        let scratch = Scratch()
        let (configuration, failure, background) = (scratch.configuration(), Box<String?>(nil), DispatchGroup())
        let person = Person("Jane")
        let db = try Database(configuration: configuration)
        try db.write {
            try db.add(person)
            // Create thread-safe reference to person
            let personRef = try ThreadSafeReference(to: person)
            // Pass the reference to a background thread
            DispatchQueue(label: "background").async(group: background) {
                do {
                    let db = try Database(configuration: configuration)
                    try db.write {
                        // Resolve within the transaction to ensure you get the latest changes from other threads
                        guard let person = try db.resolve(personRef) else {
                            return  // person was deleted
                        }
                        person.name = "Jane Doe"
                    }
                } catch {
                    failure.value = "\(error)"
                }
            }
        }
        background.wait()
        #expect(failure.value == nil)
        try db.refresh()
        #expect(person.name == "Jane Doe")
    }

    /// "Use the @ThreadSafe Wrapper": the local wrapper travels as `$personRef`
    /// (Swift 6 will not capture the wrapped `Person?` in a Sendable closure).
    @Test func passAnObjectWithTheThreadSafeWrapper() throws {
        let scratch = Scratch()
        let (configuration, failure, background) = (scratch.configuration(), Box<String?>(nil), DispatchGroup())
        let person = Person("Jane")
        let db = try Database(configuration: configuration)
        var seen: String?
        try db.write {
            try db.add(person)
            // Create thread-safe reference to person
            @ThreadSafe var personRef = person
            // @ThreadSafe vars are always optional. If the referenced object is deleted,
            // the @ThreadSafe var will be nullified.
            seen = personRef?.name
            // Pass the reference to a background thread
            let handle = $personRef
            DispatchQueue(label: "background").async(group: background) {
                do {
                    let db = try Database(configuration: configuration)
                    try db.write {
                        // Resolve within the transaction to ensure you get the latest changes from other threads.
                        // If the person object was deleted, personRef will be nil.
                        guard let person = handle.wrappedValue else {
                            return  // person was deleted
                        }
                        person.name = "Jane Doe"
                    }
                } catch {
                    failure.value = "\(error)"
                }
            }
        }
        background.wait()
        #expect(seen == "Jane" && failure.value == nil)
        try db.refresh()
        #expect(person.name == "Jane Doe")
    }

    static func someLongCallToGetNewName() async -> String {
        try? await Task.sleep(for: .milliseconds(5))
        return "Janet"
    }

    /// "@ThreadSafe on a function parameter": after the `await` the function
    /// may run on another thread; the wrapper reads that thread's object.
    static func loadNameInBackground(@ThreadSafe person: Person?, configuration: Configuration) async throws {
        let newName = await someLongCallToGetNewName()
        let db = try Database(configuration: configuration)
        try db.write {
            person?.name = newName
        }
    }

    @Test func theThreadSafeWrapperOnAFunctionParameter() async throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let id = try await Self.createAndUpdatePerson(configuration)
        // This task may have resumed on another thread: use its own instance.
        let db = try Database(configuration: configuration)
        #expect(try db.object(ofType: Person.self, forPrimaryKey: id)?.name == "Janet")
    }

    static func createAndUpdatePerson(_ configuration: Configuration) async throws -> UUID {
        let db = try Database(configuration: configuration)
        let person = try jane(db)
        let id = person.id
        try await loadNameInBackground(person: person, configuration: configuration)
        return id
    }

    /// The documents' convenience extension (their `writeAsync` helper,
    /// named apart from the SDK's own async writes): hands results to a
    /// background queue through a ThreadSafeReference and writes there.
    @Test func aBackgroundWriteHelperWithAThreadSafeReference() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            for (message, level) in [("read", 1), ("unread", 0), ("read too", 1)] {
                let entry = LogEntry()
                entry.message = message
                entry.level = Int8(level)
                try db.add(entry)
            }
        }
        let done = DispatchSemaphore(value: 0)
        let failure = Box<String?>(nil)
        try db.writeInBackground(db.objects(LogEntry.self), onComplete: { error in
            failure.value = error.map { "\($0)" }
            done.signal()
        }) { db, entries in
            for entry in entries where entry.level == 1 { try db.delete(entry) }
        }
        done.wait()
        #expect(failure.value == nil)
        try db.refresh()
        #expect(db.objects(LogEntry.self).map(\.message) == ["unread"])
    }
}

extension Database {
    /// The seed's helper: runs `block` in a write on a background queue
    /// with that thread's own instance and its own version of `results`,
    /// then `onComplete` (with the error, if any) once it has committed.
    func writeInBackground<Element: Object>(
        _ results: Results<Element>,
        onComplete: @escaping @Sendable ((any Error)?) -> Void = { _ in },
        block: @escaping @Sendable (Database, Results<Element>) throws -> Void
    ) throws {
        let reference = try ThreadSafeReference(to: results)
        let configuration = self.configuration
        DispatchQueue(label: "background").async {
            do {
                let db = try Database(configuration: configuration)
                try db.write {
                    // Resolve within the transaction to ensure you get the latest changes from other threads
                    try block(db, try db.resolve(reference))
                }
                onComplete(nil)
            } catch {
                onComplete(error)
            }
        }
    }
}
