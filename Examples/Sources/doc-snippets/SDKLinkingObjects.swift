import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's inverse relationship: a person's dogs, computed from the
/// dogs' `owner` links (types of their own here: the snippets' Dog has no owner).
enum SDKLinkingObjects {
    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var age = 0
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

    /// Queries through `dogs`: Ann has dogs aged 3 and 9, Ben none.
    static let querySnippet = Snippet.onThread(name: "sdk-linking-objects-query") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Person.self, Dog.self]))
        let ann = Person(), ben = Person()
        ann.name = "Ann"
        ben.name = "Ben"
        try db.write {
            try db.add(ben)
            for id in 1...3 {
                let dog = Dog()
                dog.id = id
                dog.age = id * 3
                dog.owner = id == 2 ? nil : ann
                try db.add(dog)
            }
        }

        // snippet: sdk-linking-objects-query
        let people = db.objects(Person.self)
        let withOldDogs = try people.where { $0.dogs.age > 5 }                // some dog linking here (ANY)
        let allYoung = try people.where { $0.dogs.allSatisfy { $0.age < 5 } } // every one: Ben, who has none
        let dogless = try people.where { $0.dogs.isEmpty }                    // Realm's dogs.@count == 0
        // snippet end

        try check(withOldDogs.map(\.name) == ["Ann"], "people with a dog older than 5: \(withOldDogs.map(\.name))")
        try check(allYoung.map(\.name) == ["Ben"], "people whose dogs are all young: \(allYoung.map(\.name))")
        try check(dogless.map(\.name) == ["Ben"], "people without dogs: \(dogless.map(\.name))")
        try db.write { try db.object(ofType: Dog.self, forPrimaryKey: 2)?.owner = ben }
        try check(ann.dogs.count == 2 && dogless.isEmpty, "after dog 2 links to Ben: \(ann.dogs.count), \(dogless.count)")
    }
}
