import Firn
import Foundation

/// The documents' Person and Dog: a person lists their dogs, a dog links
/// to its owner.
final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var owner: Person?

    convenience init(id: Int, name: String, age: Int = 0) {
        self.init()
        self.id = id
        self.name = name
        self.age = age
    }
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var name = ""
    @Persisted var dogs = List<Dog>()
    @Persisted(indexed: true) var city: String?

    convenience init(name: String) {
        self.init()
        self.name = name
    }
}
