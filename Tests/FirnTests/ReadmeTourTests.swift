import Firn
import Testing

/// The README's SDK tour, as written there (its `Dog` is the README's own),
/// so the tour cannot drift from the API.
@Suite struct ReadmeTourTests {
    final class TourDog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
    }

    @Test func theReadmeTourRuns() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Configuration(path: scratch.file, objectTypes: [TourDog.self]))
        let rex = TourDog()
        rex.id = 7
        rex.name = "Rex"
        try db.write { try db.add(rex) }
        try db.write { rex.age += 1 }
        let dogs = db.objects(TourDog.self)
        var names: [String] = []
        for dog in dogs { names.append(dog.name) }
        let frozen = try rex.freeze()
        #expect(names == ["Rex"] && rex.age == 1 && frozen.isFrozen && frozen.age == 1)
    }
}
