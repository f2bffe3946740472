import ExampleSupport
import Firn
import Foundation

// snippet: sdk-enums
enum Status: String, PersistableEnum { case open, inProgress = "in progress", done }
enum Priority: Int, PersistableEnum { case low = 1, high = 9 }

final class Chore: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var status = Status.open
    @Persisted var priority: Priority?
}

func finished(in db: Database) throws -> Results<Chore> {
    try db.objects(Chore.self).where { $0.status == .done }
}
// snippet end

/// docs/SDK.md's enum properties: stored, read back, queried.
enum SDKEnums {
    static let snippet = Snippet.onThread(name: "sdk-enums") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Chore.self]))
        try db.write {
            for (id, status) in [(1, Status.done), (2, .open), (3, .done)] {
                let chore = Chore()
                chore.id = id
                chore.status = status
                chore.priority = id == 3 ? .high : nil
                try db.add(chore)
            }
        }
        let done = try finished(in: db)
        try check(done.map(\.id) == [1, 3], "the finished chores: \(done.map(\.id))")
        try check(try done.last?.read(\.priority) == .high, "chore 3's priority")
    }
}
