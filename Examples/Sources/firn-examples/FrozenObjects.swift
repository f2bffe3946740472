import ExampleSupport
import Firn
import Foundation

/// "Frozen Objects": freeze a database, results and an object; read them
/// on another thread; thaw to modify.
enum FrozenObjects {
    static let freezeAndThaw = Example(name: "freeze and thaw") { configuration in
        let db = try Database(configuration: configuration)
        try db.write { try db.add(Person(name: "John")) }

        // Get an immutable copy of the database that can be passed across threads
        let frozenDB = try db.freeze()
        let people = db.objects(Person.self)
        // You can freeze collections
        let frozenPeople = try people.freeze()
        // You can still read from frozen databases
        let frozenPeople2 = frozenDB.objects(Person.self)
        guard let person = people.first else { throw Unexpected(description: "no person") }
        // You can freeze objects
        let frozenPerson = try person.freeze()
        try check(frozenDB.isFrozen && frozenPeople.isFrozen && frozenPeople2.isFrozen && frozenPerson.isFrozen,
                  "everything frozen is frozen")

        // Frozen values are read on any thread, without copying.
        let seen = Handoff<String?>(nil)
        let other = DispatchGroup()
        DispatchQueue.global().async(group: other) { seen.value = frozenPeople.first?.name }
        other.wait()
        try check(seen.value == "John", "another thread reads the frozen results")

        // To modify the person, you must first thaw it
        guard let thawedPerson = try frozenPerson.thaw() else { throw Unexpected(description: "thaw gave nil") }
        // An object is invalidated when it is deleted from its database.
        try check(thawedPerson.isInvalidated == false, "the thawed person is valid")
        // Thawing the frozen database gives this thread's live instance
        let thawedDB = try frozenDB.thaw()
        try check(thawedDB.isFrozen == false, "the thawed database is live")
        try thawedDB.write { thawedPerson.name = "John Michael Kane" }
        try check(frozenPerson.name == "John", "the frozen person keeps its version")
    }

    static let thawThenAppend = Example(name: "thaw both, then append to a List") { configuration in
        let db = try Database(configuration: configuration)
        try db.write {
            try db.add(Person(name: "Timmy"))
            try db.add(Dog(id: 1, name: "Lassie"))
        }
        let frozenDB = try db.freeze()
        // Get a copy of frozen objects. Here, we're getting them from a frozen
        // database, but you might also be passing them across threads.
        let frozenTimmy = try frozenDB.objects(Person.self).where { $0.name == "Timmy" }
        let frozenLassie = try frozenDB.objects(Dog.self).where { $0.name == "Lassie" }
        // Confirm the objects are frozen.
        try check(frozenTimmy.isFrozen && frozenLassie.isFrozen, "frozen results")
        // Thaw the frozen objects. You must thaw both the object you want to
        // append and the collection you want to append it to.
        let thawedTimmy = try frozenTimmy.thaw().first
        let thawedLassie = try frozenLassie.thaw().first
        // Appending the frozen dog instead throws, and says to thaw it first.
        var refused = false
        try db.write {
            do {
                if let dog = frozenLassie.first { try thawedTimmy?.dogs.append(dog) }
            } catch {
                refused = "\(error)".contains("thaw")
            }
        }
        try check(refused, "appending a frozen dog is refused")
        try db.write {
            if let thawedLassie { try thawedTimmy?.dogs.append(thawedLassie) }
        }
        try check(thawedTimmy?.dogs.first?.name == "Lassie", "Timmy's first dog is Lassie")
    }

    static let cachingFrozenObjects = Example(name: "cached frozen objects pin their version") { configuration in
        let db = try Database(configuration: configuration)
        try db.write {
            for id in 0..<100 { try db.add(Dog(id: id, name: "dog \(id)")) }
        }
        // A cache of frozen objects keeps its version's pages in the file
        // while later commits replace them: `firn pins` shows who holds it.
        var cache = Array(try db.objects(Dog.self).freeze())
        for birthday in 1...10 {
            try db.write {
                for dog in db.objects(Dog.self) { dog.age = birthday }
            }
        }
        let frozenPin = db.store.pins().first { $0.kind == .frozen && $0.pid == getpid() }
        try check(frozenPin?.frozenObjects == 100, "the frozen pin counts the cached objects")
        try check(cache.allSatisfy { $0.age == 0 }, "the cache reads its own version")
        // Copy out what you need instead, and the pin goes with the cache.
        cache.removeAll()
        try check(!(db.store.pins().contains { $0.kind == .frozen && $0.pid == getpid() }),
                  "the frozen pin went with the last cached object")
    }
}
