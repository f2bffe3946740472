import Dispatch
import FirnCore
import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// `for await change in results.changes`, as an app on an actor uses it:
/// every changeset, applied to a mirror of the rows as a table view applies
/// it, gives exactly the results that element carries — also when the
/// consumer is slower than the commits and elements wait in the buffer —
/// and the observation ends with the loop, whichever way the loop ends.
@Suite struct ResultsChangesTests {
    /// A screen's model: owns its instance and follows one query.
    actor Screen {
        let configuration: Configuration
        init(_ configuration: Configuration) { self.configuration = configuration }

        func open() async throws -> Database { try await Database.open(configuration: configuration) }

        /// Follows young dogs by name while `writer` commits on another
        /// thread (started once `.initial` came), sleeping after each element
        /// so that several commits wait in the buffer; stops when the dog
        /// `lastID` appears.
        func follow(lastID: Int, writer: @escaping @Sendable () -> Void) async throws -> Followed {
            let db = try await open()
            let young = try db.objects(Dog.self).where { $0.age < 10 }.sorted(by: \.name)
            var followed = Followed()
            var rows: [Int] = []
            var lastVersion: UInt64 = 0
            for await change in young.changes {
                switch change {
                case let .initial(results):
                    rows = results.map(\.id)
                    followed.frozen = results.isFrozen
                    lastVersion = Self.version(of: results)
                    Thread.detachNewThread(writer)
                case let .update(results, deletions, insertions, modifications):
                    let now = results.map(\.id)
                    if !results.isFrozen { followed.problems.append("update \(followed.updates) is live") }
                    let version = Self.version(of: results)
                    if version <= lastVersion { followed.problems.append("version \(version) after \(lastVersion)") }
                    lastVersion = version
                    var next = rows
                    for index in deletions.sorted(by: >) where index < next.count { next.remove(at: index) }
                    for index in insertions.sorted() where index <= next.count && index < now.count { next.insert(now[index], at: index) }
                    for index in modifications where index >= rows.count || !now.contains(rows[index]) {
                        followed.problems.append("modification \(index) names no row still there")
                    }
                    if next != now { followed.problems.append("\(rows) -\(deletions) +\(insertions) gives \(next), not \(now)") }
                    rows = now
                    followed.updates += 1
                case let .error(error):
                    followed.problems.append("\(error)")
                }
                if rows.contains(lastID) { break }
                // Slower than the writer: later commits wait in the buffer.
                try await Task.sleep(for: .milliseconds(4))
            }
            followed.rows = rows
            followed.expected = try db.objects(Dog.self).where { $0.age < 10 }.sorted(by: \.name).map(\.id)
            followed.observers = db.core.notifier?.activeObservations ?? 0
            return followed
        }

        /// The version frozen results read.
        static func version(of results: Results<Dog>) -> UInt64 { (results.source as? FrozenVersion)?.version ?? 0 }

        /// Iterates in a child task until it is cancelled; the number of
        /// observers left after, and whether the frozen elements' pins went.
        func cancelWhileIterating() async throws -> (during: Int, after: Int, frozenPinsAfter: Int) {
            let db = try await open()
            let started = AsyncStream<Void>.makeStream()
            // Not isolated to the actor (it does not capture `self`): the
            // observation starts on the actor, the elements come here.
            let dogs = db.objects(Dog.self)
            let task = Task {
                for await _ in dogs.changes { started.continuation.yield() }
            }
            var iterator = started.stream.makeAsyncIterator()
            await iterator.next()
            let during = db.core.notifier?.activeObservations ?? -1
            task.cancel()
            await task.value
            // A commit after the cancellation reaches no observer.
            try await db.asyncWrite { try db.add(Dog(1)) }
            return (during, db.core.notifier?.activeObservations ?? -1, Steps.frozenPins(db).count)
        }

        /// Leaves the loop with `break` after the first update.
        func breakAfterFirstUpdate() async throws -> (updates: Int, after: Int) {
            let db = try await open()
            var updates = 0
            for await change in db.objects(Dog.self).changes {
                if case .initial = change {
                    try await db.asyncWrite { try db.add(Dog(1)) }
                    continue
                }
                updates += 1
                break
            }
            try await db.asyncWrite { try db.add(Dog(2)) }
            return (updates, db.core.notifier?.activeObservations ?? -1)
        }

        /// Closes the instance while a child task iterates: the loop ends.
        func closeWhileIterating() async throws -> Int {
            let db = try await open()
            let started = AsyncStream<Void>.makeStream()
            let dogs = db.objects(Dog.self)
            let task = Task { () -> Int in
                var elements = 0
                for await _ in dogs.changes {
                    elements += 1
                    started.continuation.yield()
                }
                return elements
            }
            var iterator = started.stream.makeAsyncIterator()
            await iterator.next()
            db.close()
            return await task.value
        }
    }

    struct Followed: Sendable {
        var frozen = false
        var updates = 0
        var rows: [Int] = []
        var expected: [Int] = []
        var problems: [String] = []
        var observers = -1
    }

    /// A script of commits on another thread: inserts, deletes, renames
    /// (moves in the name order), ages crossing the query's bound (in and
    /// out), 40 commits as fast as they go, then the dog `lastID`.
    static func script(_ configuration: Configuration, lastID: Int, seed: UInt64) -> @Sendable () -> Void {
        {
            do {
                var random = SeededGenerator(seed: seed)
                let db = try Database(configuration: configuration)
                for _ in 0..<40 {
                    try db.write {
                        for _ in 0..<(1 + Int(random.below(3))) {
                            let id = Int(random.below(30))
                            if let dog = try db.object(ofType: Dog.self, forPrimaryKey: id) {
                                switch random.below(3) {
                                case 0: try db.delete(dog)
                                case 1: dog.name = "dog \(random.below(100))"
                                default: dog.age = Int(random.below(20))
                                }
                            } else {
                                try db.add(Dog(id, "dog \(random.below(100))", age: Int(random.below(20))))
                            }
                        }
                    }
                }
                try db.write { try db.add(Dog(lastID, "zz last", age: 1)) }
            } catch {
                Issue.record("writer: \(error)")
            }
        }
    }

    @Test func everyChangesetAppliedToAMirrorGivesTheResultsItCarriesWhileTheConsumerLags() async throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let db = try Database(configuration: configuration)
        try db.write { for id in 0..<10 { try db.add(Dog(id, "dog \(id)", age: id)) } }
        let screen = Screen(configuration)
        let followed = try await screen.follow(lastID: 1_000, writer: Self.script(configuration, lastID: 1_000, seed: 31))
        #expect(followed.problems.isEmpty, "\(followed.problems)")
        #expect(followed.frozen)
        #expect(followed.updates > 0)
        #expect(followed.rows == followed.expected)
        // The loop ended with `break`: its observer is gone.
        #expect(followed.observers == 0)
    }

    /// An app's `main.swift` (`firn-sdk-client changes`): `for await` at top
    /// level, on the main actor, while another thread commits a step after
    /// each element: inserts, a rename in place, a delete, a rename that
    /// moves a row (a deletion and an insertion; the renamed row reloads at
    /// its old index).
    @Test func anAppFollowsAQueryOnTheMainActorWithForAwait() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("changes", database: scratch.file)
        #expect(!outcome.crashed && outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == [
            "initial: []",
            "update: -[] +[0, 1] ~[] → [1, 2], mirror agrees",
            "update: -[] +[0] ~[1] → [3, 1, 2], mirror agrees",
            "update: -[1] +[] ~[] → [3, 2], mirror agrees",
            "update: -[1] +[0] ~[0] → [2, 3], mirror agrees",
            "after the loop: 2 notes",
        ], "\(outcome.stdout)\(outcome.stderr)")
    }

    @Test func cancellingTheIteratingTaskEndsTheObservationAndReleasesItsPins() async throws {
        let scratch = Scratch()
        let screen = Screen(scratch.configuration())
        let (during, after, frozenPins) = try await screen.cancelWhileIterating()
        #expect(during == 1)
        #expect(after == 0)
        #expect(frozenPins == 0)
    }

    @Test func leavingTheLoopEndsTheObservation() async throws {
        let scratch = Scratch()
        let screen = Screen(scratch.configuration())
        let (updates, after) = try await screen.breakAfterFirstUpdate()
        #expect(updates == 1)
        #expect(after == 0)
    }

    @Test func closingTheInstanceEndsTheSequence() async throws {
        let scratch = Scratch()
        let screen = Screen(scratch.configuration())
        #expect(try await screen.closeWhileIterating() == 1)
    }

    @Test func frozenResultsGiveOneFrozenErrorAndEnd() async throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let frozen = try db.objects(Dog.self).freeze()
        var elements: [String] = []
        for await change in frozen.changes {
            if case let .error(error) = change { elements.append("\(error)") } else { elements.append("change") }
        }
        #expect(elements == ["\(DatabaseError.frozen(type: "Results<Dog>", operation: "observe"))"])
    }

    /// Iterated by a task that does not run on the instance's queue: the
    /// observation starts on the queue, and the elements (frozen) are read
    /// by the task.
    @Test func aQueueBoundInstanceIsObservedOnItsQueueWhileATaskElsewhereIterates() async throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "store")
        let results = try onQueue(queue) { try Database(configuration: configuration, queue: queue).objects(Dog.self) }
        var counts: [Int] = []
        for await change in results.changes {
            switch change {
            case let .initial(dogs):
                counts.append(dogs.count)
                queue.async { try? Steps.addDogs(Database(configuration: configuration, queue: queue), 0..<3) }
            case let .update(dogs, _, insertions, _):
                counts.append(dogs.count)
                #expect(insertions == [0, 1, 2])
            case let .error(error):
                Issue.record("\(error)")
            }
            if counts.count == 2 { break }
        }
        #expect(counts == [0, 3])
    }
}
