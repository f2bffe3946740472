import Firn
import FirnTools
import Foundation

/// The tour's object types: the reference documents' Person and Dog. A
/// person lists their dogs; a dog links to its owner. `firn dump --objects`
/// and `firn info` read them back from the schema stored in the file.
package final class Dog: Object {
    @Persisted(primaryKey: true) package var id = 0
    @Persisted package var name = ""
    @Persisted package var age = 0
    @Persisted package var owner: Person?
}

package final class Person: Object {
    @Persisted(primaryKey: true) package var id = UUID()
    @Persisted package var name = ""
    @Persisted package var dogs = List<Dog>()
    @Persisted(indexed: true) package var city: String?
}

package enum DemoModel {
    package static func configuration(_ path: String) -> Configuration {
        Configuration(path: path, objectTypes: [Dog.self, Person.self])
    }
}

/// Runs an SDK call on `path`, turning its error into the toolkit's: an
/// engine error keeps its own exit status; any other (a file whose schema
/// is not the demo's) says the file is not one the demo reads (66).
func sdk<R>(_ path: String, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let DatabaseError.engine(error) {
        throw error
    } catch let error as DatabaseError {
        throw ToolError.badInput(path: path, detail: "not a demo database: \(error)")
    }
}
