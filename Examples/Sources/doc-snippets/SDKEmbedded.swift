import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's embedded objects: an address held by its contact, deleted
/// with it, replaced (deleted) when the property is assigned.
enum SDKEmbedded {
    // snippet: sdk-embedded
    final class Address: EmbeddedObject {
        @Persisted var street = ""
        @Persisted var city = ""
    }

    final class Contact: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var home: Address?             // one embedded object
        @Persisted var past = List<Address>()     // a list of them
    }
    // snippet end

    static let snippet = Snippet.onThread(name: "sdk-embedded") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Contact.self, Address.self]))
        let ann = Contact()
        ann.name = "Ann"
        ann.home = Address()
        ann.home?.city = "Oslo"
        try db.write { try db.add(ann) }                      // adds her address too
        let oslo = try db.objects(Contact.self).where { $0.home.city == "Oslo" }
        try check(oslo.count == 1, "contacts in Oslo: \(oslo.count)")
        guard let old = ann.home else { throw Unexpected(description: "Ann has no address") }
        try db.write {
            let bergen = Address()
            bergen.city = "Bergen"
            ann.home = bergen                                 // the old address is deleted
        }
        try check(old.isInvalidated && ann.home?.city == "Bergen", "the old address: \(old.isInvalidated)")
        guard let home = ann.home else { throw Unexpected(description: "Ann has no new address") }
        try db.write { try db.delete(ann) }                   // and hers go with her
        try check(home.isInvalidated, "the address outlived its contact")
    }
}
