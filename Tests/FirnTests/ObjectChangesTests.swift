import Dispatch
import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// `for await change in object.changes`, as an app on an actor uses it:
/// each change carries the object frozen at the version it describes, so a
/// loop that takes it late (after later commits, after a deletion) reads the
/// values the change names; the sequence ends with the object.
@Suite struct ObjectChangesTests {
    actor Screen {
        let configuration: Configuration
        init(_ configuration: Configuration) { self.configuration = configuration }

        /// Follows dog `id` while `writer` changes and then deletes it on
        /// another thread, sleeping after each element so that commits pile
        /// up; `firstSeen` is signalled once the first element came.
        func follow(_ id: Int, firstSeen: DispatchSemaphore,
                    writer: @escaping @Sendable () -> Void) async throws -> (seen: [String], problems: [String]) {
            let db = try await Database.open(configuration: configuration)
            guard let rex = try db.object(ofType: Dog.self, forPrimaryKey: id) else { return ([], ["no dog \(id)"]) }
            var seen: [String] = [], problems: [String] = []
            var changes = rex.changes.makeAsyncIterator()  // observing from here on
            Thread.detachNewThread(writer)
            while let change = await changes.next() {
                switch change {
                case let .change(object, properties):
                    guard let dog = object as? Dog, dog.isFrozen else {
                        problems.append("not a frozen Dog: \(object)")
                        continue
                    }
                    for property in properties where property.name == "age" && property.newValue as? Int != dog.age {
                        problems.append("age changed to \(String(describing: property.newValue)), the object says \(dog.age)")
                    }
                    seen.append("age \(dog.age)")
                case .deleted: seen.append("deleted")
                case let .error(error): problems.append("\(error)")
                }
                if seen.count + problems.count == 1 { firstSeen.signal() }
                try await Task.sleep(for: .milliseconds(5))
            }
            return (seen, problems)
        }

        /// Iterates in a child task until it is cancelled; observers left after.
        func cancelWhileIterating(_ id: Int) async throws -> (during: Int, after: Int) {
            let db = try await Database.open(configuration: configuration)
            guard let rex = try db.object(ofType: Dog.self, forPrimaryKey: id) else { return (-1, -1) }
            let changed = AsyncStream<Void>.makeStream()
            let iterating = Task {
                _ = self  // isolated to the actor, where rex lives
                for await _ in rex.changes { changed.continuation.yield() }
            }
            try await db.asyncWrite { rex.age += 1 }
            var heard = changed.stream.makeAsyncIterator()
            await heard.next()
            let during = db.core.notifier?.activeObservations ?? -1
            iterating.cancel()
            await iterating.value
            return (during, db.core.notifier?.activeObservations ?? -1)
        }
    }

    @Test func eachChangeCarriesTheObjectAsItWasAtThatVersionAndTheSequenceEndsWithTheObject() async throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        try db.write { try db.add(Dog(7, "Rex")) }
        let firstSeen = DispatchSemaphore(value: 0)
        let (seen, problems) = try await Screen(configuration).follow(7, firstSeen: firstSeen) {
            do {
                let other = try Database(configuration: configuration)
                for age in 1...10 {
                    try other.write { try other.object(ofType: Dog.self, forPrimaryKey: 7)?.age = age }
                    // The rest as fast as they go, once the loop has one element.
                    if age == 1 { firstSeen.wait() }
                }
                try other.write { try other.object(ofType: Dog.self, forPrimaryKey: 7).map { try other.delete($0) } }
            } catch {
                Issue.record("writer: \(error)")
            }
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(seen.last == "deleted" && seen.count >= 2, "\(seen)")
        let ages = seen.dropLast().compactMap { Int($0.dropFirst(4)) }
        #expect(ages == ages.sorted() && Set(ages).count == ages.count && ages.allSatisfy { (1...10).contains($0) }, "\(seen)")
    }

    @Test func cancellingTheIteratingTaskEndsTheObservation() async throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        try db.write { try db.add(Dog(7, "Rex")) }
        let (during, after) = try await Screen(configuration).cancelWhileIterating(7)
        #expect(during == 1 && after == 0)
    }

    @Test func anUnmanagedObjectGivesOneErrorAndEnds() async {
        var elements: [String] = []
        for await change in Dog(1).changes {
            if case let .error(error) = change { elements.append("\(error)") } else { elements.append("change") }
        }
        #expect(elements == ["\(DatabaseError.unmanagedObject(type: "Dog", operation: "observe"))"])
    }
}
