import Firn
import Foundation
import Testing

/// The README's SDK tour, as written there (its `Dog` is the README's own),
/// so the tour cannot drift from the API.
@Suite struct ReadmeTourTests {
    final class TourDog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
    }

    @Test func theReadmeTourRuns() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: [TourDog.self]))
        let rex = TourDog()
        rex.id = 7
        rex.name = "Rex"
        try db.write { try db.add(rex) }
        try db.write { rex.age += 1 }
        let dogs = db.objects(TourDog.self)
        var names: [String] = []
        for dog in dogs { names.append(dog.name) }
        let frozen = try rex.freeze()
        #expect(names == ["Rex"] && rex.age == 1 && frozen.isFrozen && frozen.age == 1)
    }

    /// The README's async write, on its queue, then read back.
    @Test func theReadmeAsyncWritesRun() throws {
        let scratch = Scratch()
        let config = Configuration(path: scratch.file, objectTypes: [TourDog.self])
        let done = DispatchSemaphore(value: 0)
        let completed = Box<String?>(nil)
        let queue = DispatchQueue(label: "sync")
        queue.async {
            guard let db = try? Database(configuration: config, queue: queue) else { return }
            let rex = TourDog()
            rex.id = 7
            try? db.write { try db.add(rex) }
            // As in the README:
            db.writeAsync {
                try db.object(ofType: TourDog.self, forPrimaryKey: 7)?.age += 1
            } onComplete: { error in
                completed.value = error.map { "\($0)" } ?? "durable"
            }
            db.beginAsyncWrite {
                let bo = TourDog()
                bo.id = 8
                try? db.add(bo)
                db.commitAsyncWrite(allowGrouping: true)
            }
            db.writeAsync {} onComplete: { _ in done.signal() }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let ages = try onNewThread { try Database(configuration: config).objects(TourDog.self).map { "\($0.id):\($0.age)" } }
        #expect(completed.value == "durable" && ages == ["7:1", "8:0"])
    }

    /// The README's notification, on its queue: the initial count, then a
    /// puppy added by another thread.
    @Test func theReadmeNotificationRuns() throws {
        let scratch = Scratch()
        let config = Configuration(path: scratch.file, objectTypes: [TourDog.self])
        let queue = DispatchQueue(label: "ui")
        let printed = Box<[String]>([])
        @Sendable func print(_ line: Any) { printed.update { $0.append("\(line)") } }
        let holder = Box<NotificationToken?>(nil)
        var token: NotificationToken? {
            get { holder.value }
            set { holder.value = newValue }
        }
        queue.sync {
            // As in the README:
            guard let db = try? Database(configuration: config, queue: queue) else { return }
            let puppies = try? db.objects(TourDog.self).where { $0.age < 2 }.sorted(by: \.name)
            token = try? puppies?.observe { change in      // keep the token: invalidate() stops it
                switch change {
                case let .initial(dogs): print("\(dogs.count) puppies")
                case let .update(_, deletions, insertions, modifications):
                    print("gone \(deletions), new \(insertions), changed \(modifications)")
                case let .error(error): print(error)
                }
            }
        }
        // Generous deadlines: they only bound how long a failing test waits.
        var deadline = ContinuousClock.now + .seconds(30)
        while printed.value.isEmpty, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try onNewThread {
            let db = try Database(configuration: config)
            let bo = TourDog()
            bo.id = 8
            try db.write { try db.add(bo) }
        }
        deadline = ContinuousClock.now + .seconds(30)
        while printed.value.count < 2, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(printed.value == ["0 puppies", "gone [], new [0], changed []"])
        token?.invalidate()
    }

    actor Kennel {
        let config: Configuration
        init(_ config: Configuration) { self.config = config }

        // As in the README.
        func birthday(_ id: Int) async throws -> Frozen<TourDog>? {
            let db = try await Database.open(configuration: config)
            guard let dog = try db.object(ofType: TourDog.self, forPrimaryKey: id) else { return nil }
            try await db.asyncWrite { dog.age += 1 }  // a cancelled task never runs the block
            return try Frozen(dog)                     // Sendable; .value reads it anywhere
        }
    }

    @Test func theReadmeActorRuns() async throws {
        let scratch = Scratch()
        let config = Configuration(path: scratch.file, objectTypes: [TourDog.self])
        try onNewThread {
            let db = try Database(configuration: config)
            let rex = TourDog()
            rex.id = 7
            try db.write { try db.add(rex) }
        }
        let frozen = try await Kennel(config).birthday(7)
        #expect(frozen?.value.age == 1 && frozen?.value.isFrozen == true)
    }
}
