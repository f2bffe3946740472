import ExampleSupport
import Firn
import Foundation

// snippet: sdk-codable
final class Kid: Object, Codable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var pal: Kid?
    @Persisted var tags = List<String>()
}

func store(_ json: Data, in db: Database) throws -> Data {
    let kid = try JSONDecoder().decode(Kid.self, from: json)  // unmanaged, as in Realm
    try db.write { try db.add(kid) }
    return try JSONEncoder().encode(kid)                       // managed: encoded from its record
}
// snippet end

/// docs/SDK.md's Codable objects: JSON in, stored, JSON out of the managed object.
enum SDKCodable {
    static let snippet = Snippet.onThread(name: "sdk-codable") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Kid.self]))
        let data = try store(Data(#"{"id": 1, "name": "Ann", "pal": {"id": 2, "name": "Ben"}, "tags": ["red"]}"#.utf8), in: db)
        try check(db.objects(Kid.self).count == 2, "Ann and her pal stored: \(db.objects(Kid.self).count)")
        let back = try JSONDecoder().decode(Kid.self, from: data)
        try check(back.name == "Ann" && back.pal?.name == "Ben" && Array(back.tags) == ["red"], "round trip: \(back)")
    }
}
