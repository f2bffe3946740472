import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's migration: the first version of Person, as the file holds it
/// before the snippet's configuration opens it (the stored type names drop
/// the enum's, so both versions are "Person").
enum PeopleV1 {
    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var first = ""
        @Persisted var last = ""
        @Persisted var age = 0
        @Persisted var tags = List<String>()
    }
}

/// docs/SDK.md's migration: tags renamed to labels, the name's two parts
/// joined, the age turned into a String.
enum SDKMigration {
    /// The second version of Person, which the snippet's configuration lists.
    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var fullName = ""
        @Persisted var age = ""
        @Persisted var labels = List<String>()
    }

    // The driver runs the snippet in its directory: "app.firn" is there.
    static let snippet = Snippet.onThread(name: "sdk-migration") { _ in
        let old = try Database(configuration: Configuration(path: "app.firn", objectTypes: [PeopleV1.Person.self]))
        try old.write {
            let jane = PeopleV1.Person()
            jane.id = 1
            jane.first = "Jane"
            jane.last = "Doe"
            jane.age = 42
            try jane.tags.append(contentsOf: ["vet", "runner"])
            try old.add(jane)
        }
        old.close()

        // snippet: sdk-migration
        var config = Configuration(path: "app.firn", objectTypes: [Person.self])
        config.schemaVersion = 2
        config.migrationBlock = { migration, oldVersion in
            guard oldVersion < 2 else { return }
            try migration.renameProperty(onType: "Person", from: "tags", to: "labels")
            try migration.enumerateObjects(ofType: "Person") { old, new in
                new["fullName"] = "\(old["first"] as? String ?? "") \(old["last"] as? String ?? "")"
                new["age"] = String(old["age"] as? Int ?? 0)          // Int → String
            }
        }
        // snippet end

        let db = try Database(configuration: config)
        let people = db.objects(Person.self).map { "\($0.fullName), \($0.age), \(Array($0.labels))" }
        try check(people == ["Jane Doe, 42, [\"vet\", \"runner\"]"], "the migrated people: \(people)")
    }
}
