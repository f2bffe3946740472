import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's notifications, on a thread-bound instance (its callbacks
/// run inside the calls that move it): a results observer left out of one
/// write, an object observer and a database observer.
enum SDKNotifications {
    static let snippet = Snippet.onThread(name: "sdk-notifications") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Dog.self]))
        let rex = Dog(id: 7, name: "Rex", age: 4)
        try db.write { try db.add(rex) }
        // What the snippet's results observer calls: each keeps what it was given.
        let shown = Handoff<[Int]>([])
        let applied = Handoff<Int>(0)
        let reported = Handoff<[String]>([])
        @Sendable func show(_ dogs: Results<Dog>) { shown.update { $0.append(dogs.count) } }
        @Sendable func apply(_ dogs: Results<Dog>, _ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) {
            applied.update { $0 += 1 }
        }
        @Sendable func report(_ error: any Error) { reported.update { $0.append("\(error)") } }

        // snippet: sdk-notifications
        let token = try db.objects(Dog.self).where { $0.age > 3 }.observe { change in
            switch change {
            case let .initial(dogs): show(dogs)
            case let .update(dogs, deletions, insertions, modifications): apply(dogs, deletions, insertions, modifications)
            case let .error(error): report(error)
            }
        }
        let rexToken = try rex.observe { change in /* .change(object, [PropertyChange]), .deleted, .error */ }
        let dbToken = try db.observe { notification, db in /* .didChange */ }
        try db.write(withoutNotifying: [token]) { rex.age += 1 }
        token.invalidate()
        // snippet end

        // A commit after invalidate(): the results observer must not hear it.
        try db.write { rex.name = "Rex II" }
        rexToken.invalidate()
        dbToken.invalidate()
        try check(shown.value == [1], "the results observer's initial call saw \(shown.value) dogs, not [1]")
        try check(applied.value == 0, "the results observer heard \(applied.value) updates: it was left out, then invalidated")
        try check(reported.value.isEmpty, "errors: \(reported.value)")
        try check(rex.age == 5 && rex.name == "Rex II", "Rex after both writes: \(rex.age), \(rex.name)")
    }
}
