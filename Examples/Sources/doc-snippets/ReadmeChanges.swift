import ExampleSupport
import Firn
import Foundation

/// The configuration the README's Puppies opens (the README leaves it to
/// the reader): the database in this snippet's directory.
private let config = Configuration(path: ScratchDirectory.of("readme-changes") + "/app.firn", objectTypes: [Dog.self])

// snippet: readme-changes
actor Puppies {
    private(set) var rows: [Int] = []  // what a list on screen shows
    func follow() async throws {
        let db = try await Database.open(configuration: config)
        let puppies = try db.objects(Dog.self).where { $0.age < 2 }.sorted(by: \.name)
        for await change in puppies.changes {  // leave the loop, or cancel the task, to stop
            switch change {
            case let .initial(dogs): rows = dogs.map(\.id)
            case let .update(dogs, deletions, insertions, _):  // dogs: frozen at this change's version
                for index in deletions.reversed() { rows.remove(at: index) }
                for index in insertions { rows.insert(dogs[index].id, at: index) }
            case let .error(error): throw error
            }
        }
    }
}
// snippet end

/// The README's `for await`: puppies another thread adds and deletes reach
/// the rows, and cancelling the task ends the loop.
enum ReadmeChanges {
    static let snippet = Snippet(name: "readme-changes") { _ in
        let puppies = Puppies()
        let following = Task { try await puppies.follow() }
        try await onNewThread {
            let db = try Database(configuration: config)
            try db.write {
                try db.add(Dog(id: 1, name: "Bo", age: 1))
                try db.add(Dog(id: 2, name: "Ace", age: 0))
                try db.add(Dog(id: 3, name: "Rex", age: 9))
            }
            try db.write { try db.add(Dog(id: 4, name: "Cid", age: 1)) }
            try db.write { try db.delete(db.objects(Dog.self).where { $0.name == "Bo" }) }
        }
        let deadline = Date(timeIntervalSinceNow: 30)
        while await puppies.rows != [2, 4], Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let rows = await puppies.rows
        try check(rows == [2, 4], "the rows after the commits: \(rows), not Ace and Cid")
        following.cancel()
        try await following.value
    }
}
