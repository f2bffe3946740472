import ExampleSupport
import Firn
import Foundation

/// The README's results observer on a queue: the initial count, then a
/// puppy added by another thread.
enum ReadmeObserve {
    static let snippet = Snippet.onThread(name: "readme-observe") { directory in
        let config = Configuration(path: directory + "/app.firn", objectTypes: [Dog.self])
        let queue = DispatchQueue(label: "ui")
        // The snippet's callback prints; this `print` keeps the lines to check them.
        let printed = Handoff<[String]>([])
        @Sendable func print(_ line: Any) { printed.update { $0.append("\(line)") } }

        // snippet: readme-observe
        let token: NotificationToken? = queue.sync {  // keep the token: invalidate() stops it
            guard let db = try? Database(configuration: config, queue: queue) else { return nil }
            let puppies = try? db.objects(Dog.self).where { $0.age < 2 }.sorted(by: \.name)
            return try? puppies?.observe { change in
                switch change {
                case let .initial(dogs): print("\(dogs.count) puppies")
                case let .update(_, deletions, insertions, modifications):
                    print("gone \(deletions), new \(insertions), changed \(modifications)")
                case let .error(error): print(error)
                }
            }
        }
        // snippet end

        try check(token != nil, "observing failed")
        try check(waitFor { printed.value.count == 1 }, "no initial notification: \(printed.value)")
        let db = try Database(configuration: config)
        try db.write { try db.add(Dog(id: 8, name: "Bo")) }
        try check(waitFor { printed.value.count == 2 }, "no notification of Bo: \(printed.value)")
        token?.invalidate()
        try check(printed.value == ["0 puppies", "gone [], new [0], changed []"], "the notifications: \(printed.value)")
    }
}
