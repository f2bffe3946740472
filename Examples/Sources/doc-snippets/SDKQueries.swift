import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's orders, distinct, aggregates, collection access and
/// deletes, on the README's Dog.
enum SDKQueries {
    static let snippet = Snippet.onThread(name: "sdk-queries") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Dog.self]))
        try db.write {
            for (id, name, age) in [(1, "Rex", 4), (2, "Bo", 1), (3, "Ace", 4), (4, "Max", 0), (5, "Zoe", 9)] {
                try db.add(Dog(id: id, name: name, age: age))
            }
        }

        // snippet: sdk-queries
        let dogs = db.objects(Dog.self)
        let byAgeThenName = try dogs.sorted(by: [SortDescriptor(keyPath: \Dog.age, ascending: false),
                                                 SortDescriptor(keyPath: "name")])
        let oneOfEachAge = try byAgeThenName.distinct(by: [\.age])   // the first of each age, in this order
        let puppies = try dogs.where { (0..<2).contains($0.age) }
        let count = puppies.count                                     // counted from the records
        let mean = try dogs.average(of: \.age)                        // Double?: nil for no dogs
        let youngest = byAgeThenName.last?.name                       // a RandomAccessCollection
        let middle = byAgeThenName[1..<3].map(\.name)                 // ["Ace", "Rex"]
        try db.write { try db.delete(puppies) }                       // every puppy, at once
        // snippet end

        // Live: after the delete, no puppy is left to stand for its age.
        try check(oneOfEachAge.map(\.name) == ["Zoe", "Ace"], "one of each age: \(oneOfEachAge.map(\.name))")
        try check(count == 2, "two puppies, not \(count)")
        try check(mean == 3.6, "the mean age: \(String(describing: mean))")
        try check(youngest == "Max", "the youngest: \(String(describing: youngest))")
        try check(middle == ["Ace", "Rex"], "the middle of the order: \(middle)")
        try check(dogs.map(\.name) == ["Rex", "Ace", "Zoe"], "left after the delete: \(dogs.map(\.name))")
        try db.write { try db.deleteAll() }
        try check(dogs.isEmpty, "deleteAll left \(dogs.count) dogs")
    }
}
