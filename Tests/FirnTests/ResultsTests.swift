import Firn
import Foundation
import Testing

/// Results are lazy views: counting and iterating read the tree, objects
/// read their record only when a property is used.
@Suite struct ResultsTests {
    @Test func iteratingManyObjectsReadsOneProperty() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let n = 100_000
        let start = Date()
        try db.write {
            for id in 0..<n {
                let dog = Dog()
                dog.id = id
                dog.age = id % 10
                try db.add(dog)
            }
        }
        let written = Date()
        let results = db.objects(Dog.self)
        #expect(results.count == n)
        var total = 0
        for dog in results { total += dog.age }
        print("write \(written.timeIntervalSince(start)) s, iterate \(Date().timeIntervalSince(written)) s")
        #expect(total == (n / 10) * 45)
    }

    @Test func subscriptAndOrder() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            for id in [5, -3, 12, 0] {
                let dog = Dog()
                dog.id = id
                try db.add(dog)
            }
        }
        let results = db.objects(Dog.self)
        #expect(results.map(\.id) == [-3, 0, 5, 12])  // primary-key order
        #expect(results[2].id == 5 && results[3].id == 12 && results[0].id == -3)
        #expect(results.first?.id == -3)
    }

    @Test func liveResultsFollowTheInstance() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let results = db.objects(Dog.self)
        #expect(results.isEmpty)
        try db.write {
            let dog = Dog()
            try db.add(dog)
            #expect(results.count == 1)
        }
        #expect(results.count == 1)
    }

    @Test func deletingWhileIterating() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try db.write {
            for id in 0..<10 {
                let dog = Dog()
                dog.id = id
                try db.add(dog)
            }
        }
        try db.write {
            for dog in db.objects(Dog.self) where dog.id % 2 == 0 { try db.delete(dog) }
        }
        #expect(db.objects(Dog.self).map(\.id) == [1, 3, 5, 7, 9])
    }
}
