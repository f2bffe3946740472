import Firn
import FirnCore
import Foundation
import Testing

/// Frozen objects and results: one `frozen` pin per version, an exact
/// frozen-object count, readable from other threads and after refresh.
@Suite struct FrozenTests {
    @Test func frozenObjectsShareOnePinAndAreCountedExactly() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<3)
        #expect(Steps.frozenPins(db).isEmpty)
        var frozen: [Dog] = []
        for dog in db.objects(Dog.self) { frozen.append(try dog.freeze()) }
        let results = try db.objects(Dog.self).freeze()
        #expect(frozen.allSatisfy(\.isFrozen) && results.isFrozen)
        var pins = Steps.frozenPins(db)
        #expect(pins.count == 1)
        #expect(pins.first?.frozenObjects == 3)
        #expect(pins.first?.version == db.version)
        var fromResults: [Dog] = Array(results)
        #expect(Steps.frozenPins(db).first?.frozenObjects == 6)
        fromResults.removeAll()
        frozen.removeLast()
        pins = Steps.frozenPins(db)
        #expect(pins.first?.frozenObjects == 2)
        frozen.removeAll()
        #expect(Steps.frozenPins(db).first?.frozenObjects == 0)
        _ = results  // the frozen results alone keep the pin
        #expect(Steps.frozenPins(db).count == 1)
        withExtendedLifetime(results) {}
    }

    /// Threads iterating one frozen Results at once each read through a
    /// view of their own and count on stripes of their own: the count
    /// stays exact, objects kept by one thread are counted, released ones
    /// are not, and the pin goes with the last of them.
    @Test func threadsIteratingFrozenResultsAtOnceKeepTheCountExact() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<2_000)
        final class Kept: @unchecked Sendable {
            let lock = NSLock()
            var dogs: [Dog] = []
            var names: [Int] = []
        }
        let kept = Kept()
        do {
            let results = try db.objects(Dog.self).freeze()
            DispatchQueue.concurrentPerform(iterations: 4) { t in
                var mine: [Dog] = []
                var count = 0
                for dog in results {
                    count += 1
                    if dog.id % 100 == t { mine.append(dog) }  // 20 per thread kept
                }
                kept.lock.lock()
                kept.dogs += mine
                kept.names.append(count)
                kept.lock.unlock()
            }
            #expect(kept.names == [2_000, 2_000, 2_000, 2_000])
            #expect(Steps.frozenPins(db).first?.frozenObjects == 80)
        }
        #expect(kept.dogs.count == 80 && kept.dogs.allSatisfy { $0.name == "dog \($0.id)" })
        #expect(Steps.frozenPins(db).count == 1)  // the kept objects hold it
        kept.dogs.removeAll()
        #expect(Steps.frozenPins(db).isEmpty)
    }

    /// Realm's contract, which ported code relies on: freezing a deleted
    /// object throws (it returned an invalidated copy that stopped the
    /// program on its first read), and freezing inside a write says so
    /// (it said the live Database was frozen).
    @Test func freezingADeletedObjectOrInsideAWriteThrowsSayingWhy() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<2)
        let doomed = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 0))
        try db.write { try db.delete(doomed) }
        #expect(throws: DatabaseError.invalidatedObject(type: "Dog")) { try doomed.freeze() }
        let kept = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 1))
        try db.write {
            #expect(throws: DatabaseError.inWriteTransaction(operation: "freeze Dog")) { try kept.freeze() }
            #expect(throws: DatabaseError.inWriteTransaction(operation: "freeze the Database")) { try db.freeze() }
        }
        #expect(DatabaseError.inWriteTransaction(operation: "freeze Dog").description
                == "cannot freeze Dog inside a write transaction: frozen values read committed versions; commit or cancel the write first")
        #expect(try kept.freeze().name == "dog 1")
    }

    @Test func thePinGoesWithTheLastFrozenValue() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<2)
        do {
            let dog = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 1)).freeze()
            #expect(dog.name == "dog 1")
            #expect(Steps.frozenPins(db).count == 1)
        }
        #expect(Steps.frozenPins(db).isEmpty)
    }

    @Test func frozenValuesKeepTheirVersion() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<2)
        let live = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 0))
        let frozen = try live.freeze()
        let frozenResults = try db.objects(Dog.self).freeze()
        try db.write {
            live.name = "renamed"
            let puppy = Dog()
            puppy.id = 99
            try db.add(puppy)
        }
        #expect(live.name == "renamed")
        #expect(frozen.name == "dog 0")
        #expect(frozenResults.count == 2)
        #expect(db.objects(Dog.self).count == 3)
        let thawed = try #require(try frozen.thaw())
        #expect(!thawed.isFrozen && thawed.name == "renamed")
        #expect(try frozenResults.thaw().count == 3)
    }

    @Test func frozenValuesAreReadableFromOtherThreads() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<100)
        let frozen = try db.objects(Dog.self).freeze()
        let sums = SumBox()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                sums.add(frozen.reduce(0) { $0 + $1.id })
                group.leave()
            }.start()
        }
        group.wait()
        #expect(sums.values == [4950, 4950])
    }

    @Test func thawOfADeletedObjectIsNil() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<1)
        let live = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 0))
        let frozen = try live.freeze()
        try db.write { try db.delete(live) }
        #expect(try frozen.thaw() == nil)
        #expect(frozen.name == "dog 0")
    }

    @Test func frozenObjectsRefuseWrites() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Steps.addDogs(db, 0..<1)
        let frozen = try #require(try db.object(ofType: Dog.self, forPrimaryKey: 0)).freeze()
        try db.beginWrite()
        #expect(throws: DatabaseError.frozen(type: "Dog", operation: "delete it")) { try db.delete(frozen) }
        #expect(throws: DatabaseError.self) { try db.add(frozen) }
        #expect(throws: DatabaseError.self) { try db.objects(Dog.self).freeze() }
        db.cancelWrite()
    }
}

/// Results gathered by several threads.
final class SumBox: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func add(_ value: Int) { lock.withLock { list.append(value) } }
    var values: [Int] { lock.withLock { list } }
}
