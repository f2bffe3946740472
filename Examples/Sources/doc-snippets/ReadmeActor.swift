import ExampleSupport
import Firn
import Foundation

/// The configuration the README's Kennel opens (the README leaves it to the
/// reader): the database in this snippet's directory.
private let config = Configuration(path: ScratchDirectory.of("readme-actor") + "/app.firn", objectTypes: [Dog.self])

// snippet: readme-actor
actor Kennel {
    func birthday(_ id: Int) async throws -> Frozen<Dog>? {
        let db = try await Database.open(configuration: config)
        guard let dog = try db.object(ofType: Dog.self, forPrimaryKey: id) else { return nil }
        try await db.asyncWrite { dog.age += 1 }  // a cancelled task never runs the block
        return try Frozen(dog)                     // Sendable; .value reads it anywhere
    }
}
// snippet end

/// The README's actor: Rex's birthday, handed back frozen.
enum ReadmeActor {
    static let snippet = Snippet(name: "readme-actor") { _ in
        try await onNewThread {
            let seed = try Database(configuration: config)
            try seed.write { try seed.add(Dog(id: 7, name: "Rex")) }
        }
        let frozen = try await Kennel().birthday(7)
        try check(frozen?.value.isFrozen == true && frozen?.value.age == 1,
                  "Rex handed back frozen and a year older, not \(String(describing: frozen?.value.age))")
        let missing = try await Kennel().birthday(8)
        try check(missing == nil, "no dog 8, so no birthday")
    }
}
