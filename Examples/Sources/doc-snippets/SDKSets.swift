import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's sets: unique labels on a note, live with it.
enum SDKSets {
    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var labels = MutableSet<String>()
    }

    static let snippet = Snippet.onThread(name: "sdk-sets") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Note.self]))
        // snippet: sdk-sets
        let note = Note()
        try note.labels.insert(contentsOf: ["work", "urgent", "work"])   // two labels
        try db.write { try db.add(note) }
        try db.write {
            try note.labels.formUnion(["home", "urgent"])
            try note.labels.remove("work")
        }
        print(note.labels.count, note.labels.contains("urgent"))         // 2 true
        // snippet end
        try check(Set(note.labels) == ["urgent", "home"], "labels: \(Array(note.labels))")
    }
}
