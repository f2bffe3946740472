// The README's query tour, compiled as the top-level code it is there (its
// Database is bound to the main actor, as the first SDK example's is).
// doc-snippets runs this program in a fresh directory and checks the line it
// prints; a failed check below stops it with the check's message.

// snippet: readme-queries
import Firn

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

final class Person: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var city: String?
    @Persisted var walksDogs = false
    @Persisted var dogs = List<Dog>()    // a list of objects
    @Persisted var partner: Person?      // a link
}

let db = try Database(configuration: Configuration(path: "people.firn", objectTypes: [Dog.self, Person.self]))
try db.write {
    for (id, name, age) in [(1, "Rex", 12), (2, "Bo", 1), (3, "Fido", 5)] {
        let dog = Dog()
        (dog.id, dog.name, dog.age) = (id, name, age)
        try db.add(dog)
    }
    let ann = Person()
    (ann.name, ann.city, ann.walksDogs) = ("Ann", "Oslo", true)
    try ann.dogs.append(contentsOf: db.objects(Dog.self).where { $0.age > 2 })
    let ben = Person()
    (ben.name, ben.partner) = ("Ben", ann)
    try db.add(ben)                                                         // adds Ann too
}
let people = db.objects(Person.self)
let walkers = try people.where { $0.walksDogs && $0.city.in(["Oslo", "Bergen"]) }  // a Bool is a condition
let grown = try db.objects(Dog.self).where { (2...10).contains($0.age) }    // ranges read as Swift's
let partnersInOslo = try people.where { $0.partner.city == "Oslo" }        // through a link
let withOldDogs = try people.where { $0.dogs.age > 10 }                    // some dog (Realm's ANY)
let allGrown = try people.where { $0.dogs.allSatisfy { $0.age > 2 } }      // every dog (ALL): Ben has none
let byAge = try db.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: \Dog.age, ascending: false),
                                                 SortDescriptor(keyPath: \Dog.name)])
let oldest = try db.objects(Dog.self).max(of: \.age)                        // from the records, no objects made
print(walkers.count, grown.count, partnersInOslo.first?.name ?? "-", withOldDogs.count, allGrown.count,
      byAge.last?.name ?? "-", oldest ?? 0, try grown.sum(of: \.age))       // 1 1 Ben 1 2 Bo 12 5
try db.write { try db.delete(grown) }                                       // results, a list, an array…
// snippet end

// What the README says the tour did.
precondition(db.objects(Dog.self).map(\.name) == ["Rex", "Bo"], "Fido is gone: \(db.objects(Dog.self).map(\.name))")
precondition(people.first { $0.name == "Ann" }?.dogs.map(\.name) == ["Rex"], "Fido left Ann's list")
precondition(grown.isEmpty, "the deleted results are empty")
