import ExampleSupport
import Firn
import Foundation

/// Main-actor state of an application, which docs/SDK.md's completion
/// updates: a completion runs on the instance's queue, so it hands the
/// outcome to the main actor.
@MainActor var status = ""

/// docs/SDK.md's @Sendable async write: Rex found again inside the block, the
/// outcome handed to the main actor from the completion.
enum SDKWriteAsync {
    static let snippet = Snippet(name: "sdk-write-async") { directory in
        let config = Configuration(path: directory + "/app.firn", objectTypes: [Dog.self])
        try await onNewThread {
            let seed = try Database(configuration: config)
            try seed.write { try seed.add(Dog(id: 7, name: "Rex")) }
        }
        let queue = DispatchQueue(label: "writes")
        queue.async {
            guard let db = try? Database(configuration: config, queue: queue) else { return }
            // snippet: sdk-write-async
            db.writeAsync {
                try db.object(ofType: Dog.self, forPrimaryKey: 7)?.age += 1
            } onComplete: { error in
                Task { @MainActor in status = error == nil ? "saved" : "failed" }
            }
            // snippet end
        }
        // The completion's task runs on the main actor: look there until it
        // has run (the deadline only bounds how long a failing run waits).
        let deadline = ContinuousClock.now + .seconds(30)
        while await MainActor.run(body: { status.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let outcome = await MainActor.run { status }
        try check(outcome == "saved", "the completion reported \(outcome.debugDescription), not \"saved\"")
        try await onNewThread {
            let db = try Database(configuration: config)
            let age = try db.object(ofType: Dog.self, forPrimaryKey: 7)?.age
            try check(age == 1, "Rex's age after the write: \(String(describing: age))")
        }
    }
}
