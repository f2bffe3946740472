import ExampleSupport
import Firn
import Foundation

/// "Threading": a database on a serial queue, and objects passed to
/// another thread with a ThreadSafeReference or @ThreadSafe.
enum Threading {
    static let serialQueue = Example(name: "a serial queue") { configuration in
        let count = Handoff<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Initialize a serial queue, and perform database operations on it
        let serialQueue = DispatchQueue(label: "serial-queue")
        serialQueue.async {
            defer { done.signal() }
            guard let db = try? Database(configuration: configuration, queue: serialQueue) else { return }
            // Do something with the database on the non-main thread
            try? db.write { try db.add(Dog(id: 42, name: "Rex")) }
            count.value = db.objects(Dog.self).count
        }
        done.wait()
        try check(count.value == 1, "the queue's instance wrote and read")
    }

    static let threadSafeReference = Example(name: "pass an object with a ThreadSafeReference") { configuration in
        let failure = Handoff<String?>(nil)
        let background = DispatchGroup()
        let person = Person(name: "Jane")
        let db = try Database(configuration: configuration)
        try db.write {
            try db.add(person)
            // Create thread-safe reference to person
            let personRef = try ThreadSafeReference(to: person)
            // Pass the reference to a background thread
            DispatchQueue(label: "background").async(group: background) {
                do {
                    let db = try Database(configuration: configuration)
                    try db.write {
                        // Resolve within the transaction to ensure you get the latest changes from other threads
                        guard let person = try db.resolve(personRef) else {
                            return  // person was deleted
                        }
                        person.name = "Jane Doe"
                    }
                } catch {
                    failure.value = "\(error)"
                }
            }
        }
        background.wait()
        try check(failure.value == nil, "the background write: \(failure.value ?? "")")
        try db.refresh()
        try check(person.name == "Jane Doe", "the background write is seen after refresh")
    }

    static let threadSafeWrapper = Example(name: "pass an object with @ThreadSafe") { configuration in
        let failure = Handoff<String?>(nil)
        let background = DispatchGroup()
        let person = Person(name: "Jane")
        let db = try Database(configuration: configuration)
        try db.write {
            try db.add(person)
            // Create thread-safe reference to person
            @ThreadSafe var personRef = person
            // @ThreadSafe vars are always optional. If the referenced object is deleted,
            // the @ThreadSafe var will be nullified.
            print("    Person's name: \(personRef?.name ?? "unknown")")
            // Pass the reference to a background thread (the wrapper itself:
            // strict concurrency will not send the Person it reads)
            let handle = $personRef
            DispatchQueue(label: "background").async(group: background) {
                do {
                    let db = try Database(configuration: configuration)
                    try db.write {
                        // If the person object was deleted, personRef will be nil.
                        guard let person = handle.wrappedValue else {
                            return  // person was deleted
                        }
                        person.name = "Jane Doe"
                    }
                } catch {
                    failure.value = "\(error)"
                }
            }
        }
        background.wait()
        try check(failure.value == nil, "the background write: \(failure.value ?? "")")
        try db.refresh()
        try check(person.name == "Jane Doe", "the background write is seen after refresh")
    }
}
