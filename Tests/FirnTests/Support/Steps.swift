import Firn
import FirnCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Unmanaged objects made in one call.
extension Dog {
    /// A dog with `id` and `name` (`age` and `owner` set when given).
    convenience init(_ id: Int, _ name: String = "", age: Int? = nil, owner: Person? = nil) {
        self.init()
        self.id = id
        self.name = name
        if let age { self.age = age }
        if let owner { self.owner = owner }
    }
}

extension Person {
    /// A person named `name` (with `id` when given).
    convenience init(_ name: String, id: UUID? = nil) {
        self.init()
        if let id { self.id = id }
        self.name = name
    }
}

/// Steps that several suites take.
enum Steps {
    /// This process's pins of frozen objects on `db`'s file.
    static func frozenPins(_ db: Database) -> [PinRecord] {
        db.store.pins().filter { $0.kind == .frozen && $0.pid == getpid() && $0.label == "frozen objects" }
    }

    /// Adds dogs `ids`, named "dog <id>", in one write.
    static func addDogs(_ db: Database, _ ids: Range<Int>) throws {
        try db.write {
            for id in ids {
                let dog = Dog()
                dog.id = id
                dog.name = "dog \(id)"
                try db.add(dog)
            }
        }
    }

    /// Another thread adds a dog (its own instance, gone afterwards).
    static func commitElsewhere(_ configuration: Configuration, id: Int) throws {
        try onNewThread {
            let other = try Database(configuration: configuration)
            let dog = Dog()
            dog.id = id
            try other.write { try other.add(dog) }
        }
    }
}
