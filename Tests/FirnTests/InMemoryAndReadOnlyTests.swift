import Dispatch
import FirnCore
import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// The two configurations tests and bundled data reach for, as Realm has
/// them: an in-memory database (shared by its identifier while it lives,
/// nothing on disk) and a read-only file (writes refused with a typed
/// error, nothing created). Serialized: one test looks for the directories
/// the others make for a moment while they open.
@Suite(.serialized) struct InMemoryAndReadOnlyTests {
    static func memory(_ identifier: String) -> Configuration {
        Configuration(inMemoryIdentifier: identifier, objectTypes: [Dog.self, Person.self])
    }

    /// Directories of in-memory databases present in the places they are made.
    static func memoryDirectories() -> [String] {
        InMemoryFile.parents.flatMap { parent in
            ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).filter { $0.hasPrefix("firn-memory-") }.map { parent + "/" + $0 }
        }
    }

    // MARK: in memory

    @Test func instancesOfOneIdentifierShareItsDataWhileOneLivesAndOthersAreApart() throws {
        let identifier = "shared-\(UUID())"
        try onNewThread {
            let db = try Database(configuration: Self.memory(identifier))
            try Steps.addDogs(db, 0..<3)
            // Another thread's instance of the identifier reads the same data.
            let seen = try onNewThread { try Database(configuration: Self.memory(identifier)).objects(Dog.self).count }
            #expect(seen == 3)
            // Another identifier is another database.
            #expect(try Database(configuration: Self.memory("other-\(UUID())")).objects(Dog.self).isEmpty)
            #expect(db.objects(Dog.self).count == 3)
        }
        // Every instance is gone with its thread: so is the data.
        let after = try onNewThread { try Database(configuration: Self.memory(identifier)).objects(Dog.self).count }
        #expect(after == 0)
    }

    @Test func noFileIsLeftOnDiskWhileTheDatabaseLivesOrAfter() throws {
        let before = Set(Self.memoryDirectories())
        let identifier = "files-\(UUID())"
        try onNewThread {
            let db = try Database(configuration: Self.memory(identifier))
            try Steps.addDogs(db, 0..<500)
            #expect(Set(Self.memoryDirectories()) == before)
            // Made on the memory-backed tmpfs, and already removed.
            let path = db.store.path
            #expect(path.hasPrefix("/dev/shm/firn-memory-") || !FileManager.default.isWritableFile(atPath: "/dev/shm"), "\(path)")
            #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + ".lock"))
            #expect(db.objects(Dog.self).count == 500)
            // The descriptors still name the (removed) file: reads and writes go on.
            try db.write { try db.delete(db.objects(Dog.self).where { $0.id < 250 }) }
            #expect(db.objects(Dog.self).count == 250)
        }
        #expect(Set(Self.memoryDirectories()) == before)
    }

    @Test func aQueueBoundInMemoryInstanceHearsAnotherThreadsCommitsAndWritesAsynchronously() async throws {
        let configuration = Self.memory("queue-\(UUID())")
        let queue = DispatchQueue(label: "memory")
        let heard = AsyncStream<Int>.makeStream()
        // The instance stays alive in the token (and its data with it).
        let token = try onQueue(queue) {
            try Database(configuration: configuration, queue: queue).objects(Dog.self).observe { change in
                if case let .update(dogs, _, _, _) = change { heard.continuation.yield(dogs.count) }
            }
        }
        try Steps.commitElsewhere(configuration, id: 1)
        var counts = heard.stream.makeAsyncIterator()
        #expect(await counts.next() == 1)
        let completion = AsyncStream<String>.makeStream()
        queue.async {
            guard let db = try? Database(configuration: configuration, queue: queue) else { return }
            db.writeAsync { try db.add(Dog(2)) } onComplete: { error in completion.continuation.yield(error.map { "\($0)" } ?? "done") }
        }
        var completions = completion.stream.makeAsyncIterator()
        #expect(await completions.next() == "done")
        #expect(await counts.next() == 2)
        token.invalidate()
    }

    @Test func pathAndInMemoryIdentifierReplaceEachOther() {
        var configuration = Self.memory("a")
        #expect(configuration.path.isEmpty)
        configuration.path = "x.firn"
        #expect(configuration.inMemoryIdentifier == nil)
        configuration.inMemoryIdentifier = "b"
        #expect(configuration.path.isEmpty && configuration.inMemoryIdentifier == "b")
    }

    @Test func aReadOnlyInMemoryConfigurationReadsOnlyALiveDatabase() throws {
        var readOnly = Self.memory("read-only-\(UUID())")
        readOnly.readOnly = true
        let configuration = readOnly
        #expect(throws: DatabaseError.engine(.notFound(path: "in-memory database \"\(configuration.inMemoryIdentifier ?? "")\"",
                                                       detail: "a read-only configuration opens an existing database, and none is open"))) {
            _ = try Database(configuration: configuration)
        }
    }

    // MARK: read-only

    static func readOnly(_ scratch: Scratch) -> Configuration {
        var configuration = scratch.configuration()
        configuration.readOnly = true
        return configuration
    }

    @Test func aMissingFileThrowsNotFoundAndNothingIsCreated() throws {
        let scratch = Scratch()
        #expect(throws: DatabaseError.engine(.notFound(path: scratch.file, detail: "a read-only configuration opens an existing file"))) {
            _ = try Database(configuration: Self.readOnly(scratch))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    @Test func writesThrowReadOnlyAndTheFileStaysAsItWas() async throws {
        let scratch = Scratch()
        try onNewThread { try Steps.addDogs(Database(configuration: scratch.configuration()), 0..<2) }
        let version = try onNewThread { () throws -> UInt64 in
            let db = try Database(configuration: Self.readOnly(scratch))
            #expect(db.objects(Dog.self).map(\.name) == ["dog 0", "dog 1"])
            #expect(throws: DatabaseError.readOnly(operation: "beginWrite")) { try db.write { try db.add(Dog(5)) } }
            #expect(throws: DatabaseError.readOnly(operation: "beginWrite")) { try db.beginWrite() }
            #expect(!db.isInWriteTransaction)
            let completed = Box<String?>(nil)
            db.writeAsync { try db.add(Dog(6)) } onComplete: { error in completed.value = error.map { "\($0)" } }
            #expect(completed.value == DatabaseError.readOnly(operation: "writeAsync").description)
            return db.version
        }
        let kennel = ReadOnlyKennel(Self.readOnly(scratch))
        #expect(try await kennel.asyncWriteError() == DatabaseError.readOnly(operation: "asyncWrite"))
        #expect(DatabaseError.readOnly(operation: "beginWrite").description
                == "the Database was opened read-only (Configuration.readOnly): cannot beginWrite")
        let writable = try onNewThread { () throws -> (Int, UInt64) in
            let db = try Database(configuration: scratch.configuration())
            return (db.objects(Dog.self).count, db.version)
        }
        #expect(writable == (2, version))
    }

    actor ReadOnlyKennel {
        let configuration: Configuration
        init(_ configuration: Configuration) { self.configuration = configuration }
        func asyncWriteError() async throws -> DatabaseError? {
            let db = try await Database.open(configuration: configuration)
            do {
                try await db.asyncWrite { try db.add(Dog(7)) }
                return nil
            } catch let error as DatabaseError {
                return error
            }
        }
    }

    @Test func aReadOnlyInstanceSeesOtherWritersCommitsWhenItRefreshes() throws {
        let scratch = Scratch()
        try onNewThread { try Steps.addDogs(Database(configuration: scratch.configuration()), 0..<1) }
        try onNewThread {
            let db = try Database(configuration: Self.readOnly(scratch))
            #expect(db.objects(Dog.self).count == 1)
            try Steps.commitElsewhere(scratch.configuration(), id: 9)
            #expect(try db.refresh())
            #expect(db.objects(Dog.self).count == 2)
            // A writable instance of the file on this thread writes; the read-only one still refuses.
            let writable = try Database(configuration: scratch.configuration())
            try writable.write { try writable.add(Dog(10)) }
            #expect(throws: DatabaseError.readOnly(operation: "beginWrite")) { try db.beginWrite() }
        }
    }

    @Test func aSchemaTheFileLacksCannotBeRecordedReadOnly() throws {
        let scratch = Scratch()
        try onNewThread { _ = try Database(configuration: scratch.configuration([Dog.self, Person.self])) }
        var withLogEntry = scratch.configuration([Dog.self, Person.self, LogEntry.self])
        withLogEntry.readOnly = true
        let newType = withLogEntry
        #expect(throws: DatabaseError.readOnly(operation: "bring the file's schema of LogEntry to the configuration's")) {
            try onNewThread { _ = try Database(configuration: newType) }
        }
        var higher = scratch.configuration([Dog.self, Person.self])
        higher.readOnly = true
        higher.schemaVersion = 3
        let newVersion = higher
        #expect(throws: DatabaseError.readOnly(operation: "record schemaVersion 3 (the file has 0)")) {
            try onNewThread { _ = try Database(configuration: newVersion) }
        }
    }
}
