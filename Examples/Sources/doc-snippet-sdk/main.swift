// The README's first SDK example, compiled as the top-level code it is there
// (main-actor code: its Database is bound to the main actor, and stays usable
// after the `await`, when Linux runs this code on another thread). doc-snippets runs this
// program in a fresh directory, so "app.firn" is a new database, and checks
// that it printed the one dog's name; a failed check below stops it with the
// check's message (a precondition: this program is the README's application,
// which depends on Firn alone).

// snippet: readme-sdk
import Firn

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

let db = try Database(configuration: Configuration(path: "app.firn", objectTypes: [Dog.self]))
let rex = Dog()
rex.id = 7
rex.name = "Rex"
try db.write { try db.add(rex) }          // a duplicate key without update: is a typed error
try await db.asyncWrite { rex.age += 1 }  // waits for the lock and the disk without blocking
let dogs = db.objects(Dog.self)           // live and lazy: nothing is copied
for dog in dogs { print(dog.name) }
let frozen = try rex.freeze()             // readable from any thread, one shared pin per version
// snippet end

// What the README says the example did.
precondition(dogs.count == 1 && dogs.first?.name == "Rex", "one dog, Rex (\(dogs.count) dogs)")
precondition(rex.age == 1, "Rex is one year old, not \(rex.age)")
precondition(frozen.isFrozen && frozen.age == 1 && frozen.name == "Rex", "the frozen Rex reads what was committed")
