import Firn
import Foundation

// Versions of the same types for the migration tests: each enum is one
// version of the application (the stored names drop the enum's).

/// The first version: a pet with a name, an age and tags, owned by a keeper.
enum PetsV1 {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags = List<String>()
        @Persisted var age = 0
        @Persisted var keeper: Keeper?
    }
    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets = List<Pet>()
    }
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

/// Additive: a property added at the front and one in the middle, age moved
/// up, name indexed, and a new type.
enum PetsAdded {
    final class Pet: Object {
        @Persisted var nickname: String?
        @Persisted(primaryKey: true) var id = 0
        @Persisted var age = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var weight = 1.5
        @Persisted var tags = List<String>()
        @Persisted var keeper: Keeper?
    }
    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets = List<Pet>()
    }
    final class Toy: Object {
        @Persisted var label = ""
    }
    static let types: [Object.Type] = [Pet.self, Keeper.self, Toy.self]
}

/// PetsAdded with the index on name dropped and one on age added.
enum PetsReindexed {
    final class Pet: Object {
        @Persisted var nickname: String?
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var age = 0
        @Persisted var name = ""
        @Persisted var weight = 1.5
        @Persisted var tags = List<String>()
        @Persisted var keeper: Keeper?
    }
    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets = List<Pet>()
    }
    final class Toy: Object {
        @Persisted var label = ""
    }
    static let types: [Object.Type] = [Pet.self, Keeper.self, Toy.self]
}

/// Destructive changes of PetsV1, one each.
enum PetsRemoved {  // tags and age removed
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var keeper: Keeper?
    }
    typealias Keeper = PetsV1.Keeper
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

enum PetsRetyped {  // age: Int → String
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags = List<String>()
        @Persisted var age = ""
        @Persisted var keeper: Keeper?
    }
    typealias Keeper = PetsV1.Keeper
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

enum PetsOptional {  // name: String → String?
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name: String?
        @Persisted var tags = List<String>()
        @Persisted var age = 0
        @Persisted var keeper: Keeper?
    }
    typealias Keeper = PetsV1.Keeper
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

enum PetsUnlisted {  // tags: List<String> → String
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags = ""
        @Persisted var age = 0
        @Persisted var keeper: Keeper?
    }
    typealias Keeper = PetsV1.Keeper
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

enum PetsRetargeted {  // keeper: Keeper? → Vet?
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags = List<String>()
        @Persisted var age = 0
        @Persisted var keeper: Vet?
    }
    final class Vet: Object {
        @Persisted(primaryKey: true) var id = 0
    }
    typealias Keeper = PetsV1.Keeper
    static let types: [Object.Type] = [Pet.self, Keeper.self, Vet.self]
}

enum PetsRekeyed {  // the primary key moves from id to name
    final class Pet: Object {
        @Persisted var id = 0
        @Persisted(primaryKey: true) var name = ""
        @Persisted var tags = List<String>()
        @Persisted var age = 0
        @Persisted var keeper: Keeper?
    }
    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets = List<Pet>()
    }
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

enum PetsUnkeyed {  // no primary key any more: generated keys
    final class Pet: Object {
        @Persisted var id = 0
        @Persisted var name = ""
        @Persisted var tags = List<String>()
        @Persisted var age = 0
        @Persisted var keeper: Keeper?
    }
    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets = List<Pet>()
    }
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}

/// A converting version: name split into given and family names (name
/// removed), age as text, tags renamed to labels, indexed given name.
enum PetsConverted {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var given = ""
        @Persisted var family: String?
        @Persisted var labels = List<String>()
        @Persisted var age = ""
        @Persisted var keeper: Keeper?
    }
    typealias Keeper = PetsV1.Keeper
    static let types: [Object.Type] = [Pet.self, Keeper.self]
}
