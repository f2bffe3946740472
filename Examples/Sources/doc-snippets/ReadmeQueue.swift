import ExampleSupport
import Firn
import Foundation

/// The README's async writes on a queue-bound instance: Rex's birthday
/// through `writeAsync`, Bo added through `beginAsyncWrite`.
enum ReadmeQueue {
    static let snippet = Snippet.onThread(name: "readme-queue") { directory in
        let config = Configuration(path: directory + "/app.firn", objectTypes: [Dog.self])
        let seed = try Database(configuration: config)
        try seed.write { try seed.add(Dog(id: 7, name: "Rex")) }

        // snippet: readme-queue
        let queue = DispatchQueue(label: "sync")
        queue.async {
            guard let db = try? Database(configuration: config, queue: queue) else { return }
            db.writeAsync {
                try db.object(ofType: Dog.self, forPrimaryKey: 7)?.age += 1  // blocks are @Sendable: find Rex here
            } onComplete: { error in
                // on `queue`, after the commit is durable (error: nil) or failed
            }
            db.beginAsyncWrite {
                let bo = Dog()
                bo.id = 8
                try? db.add(bo)
                db.commitAsyncWrite(allowGrouping: true)  // returns at once; grouped commits share one sync
            }
        }
        // snippet end

        // Async writes of an instance run in the order asked for: the
        // completion of one asked for last comes after both of the snippet's.
        let done = DispatchSemaphore(value: 0)
        queue.async {
            guard let db = try? Database(configuration: config, queue: queue) else { return }
            db.writeAsync {} onComplete: { _ in done.signal() }
        }
        try check(done.wait(timeout: .now() + 30) == .success, "the queue's async writes did not complete in 30 s")
        _ = try seed.refresh()
        let dogs = seed.objects(Dog.self).map { "\($0.id):\($0.age)" }
        try check(dogs == ["7:1", "8:0"], "Rex a year older and Bo added, not \(dogs)")
    }
}
