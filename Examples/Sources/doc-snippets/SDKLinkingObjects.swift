import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's inverse relationship: a person's dogs, computed from the
/// dogs' `owner` links (types of their own here: the snippets' Dog has no owner).
enum SDKLinkingObjects {
    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var owner: Person?
    }

    // snippet: sdk-linking-objects
    final class Person: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted(originProperty: "owner") var dogs: LinkingObjects<Dog>   // every Dog whose owner is this person
    }
    // snippet end

    static let snippet = Snippet.onThread(name: "sdk-linking-objects") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Person.self, Dog.self]))
        let ann = Person()
        ann.name = "Ann"
        try db.write {
            for id in 1...3 {
                let dog = Dog()
                dog.id = id
                dog.owner = id == 2 ? nil : ann
                try db.add(dog)
            }
        }
        try check(ann.dogs.map(\.id) == [1, 3], "Ann's dogs: \(ann.dogs.map(\.id))")
        try db.write { try db.object(ofType: Dog.self, forPrimaryKey: 2)?.owner = ann }
        try check(ann.dogs.count == 3, "Ann's dogs after dog 2 links to her: \(ann.dogs.count)")
    }
}
