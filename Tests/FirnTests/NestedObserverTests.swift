import Dispatch
import Foundation
import Testing
import Firn
import FirnTestSupport

/// An observer added inside another observer's callback (Realm's
/// `testAddingBlockFromWithinNotificationBlock`, ported): it gets its
/// `.initial` at the next refresh point at the latest, and from then on
/// hears every commit the first observer hears, in the same steps.
@Suite struct NestedObserverTests {
    /// What the two observers heard, in order.
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        let nested = Box<NotificationToken?>(nil)

        func append(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }

        func wait(for count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if all.count >= count { return true }
                usleep(1_000)
            }
            return false
        }
    }

    static func describe(_ observer: Int, _ change: ResultsChange<Dog>) -> String {
        switch change {
        case let .initial(dogs): return "\(observer) initial \(dogs.count)"
        case let .update(dogs, _, insertions, _): return "\(observer) update \(dogs.count) +\(insertions)"
        case let .error(error): return "\(observer) error \(error)"
        }
    }

    /// The first observer's callback, which adds the second at its first update.
    static func observeNesting(_ results: Results<Dog>, _ heard: Heard) throws -> NotificationToken {
        try results.observe { change in
            heard.append(describe(1, change))
            guard case .update = change, heard.nested.value == nil else { return }
            heard.nested.value = try? results.observe { heard.append(describe(2, $0)) }
        }
    }

    static func commit(_ configuration: Configuration, dog id: Int) throws {
        try onNewThread {
            let other = try Database(configuration: configuration)
            try other.write {
                let dog = Dog()
                dog.id = id
                try other.add(dog)
            }
        }
    }

    static let expected = ["1 initial 0", "1 update 1 +[0]", "2 initial 1", "1 update 2 +[1]", "2 update 2 +[1]"]

    @Test func onAThreadTheNestedObserverHearsTheNextCommit() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let heard = Heard()
        try onNewThread {
            let db = try Database(configuration: configuration)
            let token = try Self.observeNesting(db.objects(Dog.self), heard)
            try Self.commit(configuration, dog: 1)
            _ = try db.refresh()
            try Self.commit(configuration, dog: 2)
            _ = try db.refresh()
            token.invalidate()
            heard.nested.value?.invalidate()
        }
        #expect(heard.all == Self.expected)
    }

    @Test func onAQueueTheNestedObserverHearsTheNextCommit() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "nested")
        let heard = Heard()
        let token = try onQueue(queue) {
            try Self.observeNesting(try Database(configuration: configuration, queue: queue).objects(Dog.self), heard)
        }
        #expect(heard.wait(for: 1))
        try Self.commit(configuration, dog: 1)
        #expect(heard.wait(for: 3), "\(heard.all)")
        try Self.commit(configuration, dog: 2)
        #expect(heard.wait(for: 5), "\(heard.all)")
        queue.sync {
            token.invalidate()
            heard.nested.value?.invalidate()
        }
        #expect(heard.all == Self.expected)
    }

    /// A write made on the queue right inside the callback that added the
    /// nested observer: the nested one begins before that write's commit
    /// is delivered, and hears it.
    @Test func aWriteRightAfterAddingTheNestedObserverIsHeardByIt() throws {
        let scratch = Scratch()
        let configuration = scratch.configuration()
        let queue = DispatchQueue(label: "nested-write")
        let heard = Heard()
        let token = try onQueue(queue) {
            let db = try Database(configuration: configuration, queue: queue)
            let results = db.objects(Dog.self)
            return try results.observe { change in
                heard.append(Self.describe(1, change))
                guard case .update = change, heard.nested.value == nil else { return }
                heard.nested.value = try? results.observe { heard.append(Self.describe(2, $0)) }
                try? db.write {
                    let dog = Dog()
                    dog.id = 2
                    try db.add(dog)
                }
            }
        }
        #expect(heard.wait(for: 1))
        try Self.commit(configuration, dog: 1)
        #expect(heard.wait(for: 5), "\(heard.all)")
        queue.sync {
            token.invalidate()
            heard.nested.value?.invalidate()
        }
        #expect(heard.all == Self.expected)
    }
}
