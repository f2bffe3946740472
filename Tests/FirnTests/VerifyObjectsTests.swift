import Firn
import Foundation
import Testing
import FirnTestSupport

/// The built `firn verify` finds nothing wrong in a file with links,
/// lists and index trees (their trees are ordinary trees to the verifier).
@Suite struct VerifyObjectsTests {
    @Test func verifyIsCleanOnAFileWithLinksListsAndIndexes() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: scratch.configuration([Dog.self, Person.self, Tagged.self]))
            try db.write {
                for p in 0..<40 {
                    let person = Person()
                    person.name = "p\(p)"
                    person.city = p % 3 == 0 ? nil : "city \(p % 5)"
                    for d in 0..<25 {
                        let dog = Dog()
                        dog.id = p * 100 + d
                        dog.owner = person
                        try person.dogs.append(dog)
                        try person.nicknames.append(String(repeating: "n", count: d * 20))
                    }
                    try db.add(person)
                    let tagged = Tagged()
                    tagged.id = p
                    tagged.name = String(repeating: "t", count: p * 10)
                    try db.add(tagged)
                }
            }
            try db.write {
                for person in db.objects(Person.self) where person.name.hasSuffix("7") {
                    try person.dogs.remove(at: 3)
                    person.city = "moved"
                }
                for dog in db.objects(Dog.self) where dog.id % 7 == 0 { try db.delete(dog) }
            }
            // Deleted dogs left their lists.
            let listed = db.objects(Person.self).flatMap { $0.dogs.map(\.id) }
            #expect(listed.count == 854 && listed.allSatisfy { $0 % 7 != 0 })
        }
        let result = try FirnCommand.run(["verify", scratch.file])
        #expect(result.status == 0, "\(result.output)")
        let names = try FirnCommand.run(["info", scratch.file, "--json"])
        #expect(names.status == 0 && names.output.contains("list.Person.dogs") && names.output.contains("idx.Person.city"), "\(names.output)")
    }
}
