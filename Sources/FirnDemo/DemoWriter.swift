import Firn
import FirnTools
import Foundation

/// The tour's application writing: people adopting dogs, dogs growing
/// older, the odd dog leaving — one SDK write transaction per commit, so
/// a pinned version keeps pages that later commits replace.
package struct DemoWriter {
    static let people = ["Ada", "Ben", "Chloe", "Dachary", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jane", "Kai", "Lena"]
    static let cities = ["Oslo", "Lima", "Pune", "Cork", nil]
    static let dogNames = ["Rex", "Lassie", "Ben", "Lita", "Maui", "Fido", "Luna", "Bo", "Pip", "Nala", "Otto", "Zuzu"]

    package let database: Database
    /// Commits made so far by this writer.
    package private(set) var commits = 0
    private var nextDogID = 1
    private var rng = SystemRandomNumberGenerator()

    /// Opens (creating) `path` on the calling thread.
    package init(path: String) throws {
        database = try sdk(path) { try Database(configuration: DemoModel.configuration(path)) }
        nextDogID = (database.objects(Dog.self).map(\.id).max() ?? 0) + 1
    }

    /// One commit: the people on the first, then each time 6 new dogs with
    /// owners, 10 birthdays, and every 5th commit the oldest dog leaves.
    package mutating func commit() throws {
        let db = database
        let path = db.configuration.path
        let first = db.objects(Person.self).isEmpty
        var newID = nextDogID
        var rng = self.rng
        let commit = commits
        try sdk(path) {
            try db.write {
                if first {
                    for (index, name) in Self.people.enumerated() {
                        let person = Person()
                        person.name = name
                        person.city = Self.cities[index % Self.cities.count]
                        try db.add(person)
                    }
                }
                let people = Array(db.objects(Person.self))
                for _ in 0..<6 {
                    let dog = Dog()
                    dog.id = newID
                    dog.name = Self.dogNames[newID % Self.dogNames.count] + " \(newID)"
                    dog.age = Int.random(in: 0...3, using: &rng)
                    let owner = people[Int.random(in: 0..<people.count, using: &rng)]
                    dog.owner = owner
                    try db.add(dog)
                    try owner.dogs.append(dog)
                    newID += 1
                }
                for _ in 0..<10 {
                    if let dog = try db.object(ofType: Dog.self, forPrimaryKey: Int.random(in: 1..<newID, using: &rng)) {
                        dog.age += 1
                    }
                }
                if commit % 5 == 4, let oldest = db.objects(Dog.self).first {
                    try db.delete(oldest)
                }
            }
        }
        nextDogID = newID
        self.rng = rng
        commits += 1
    }
}
