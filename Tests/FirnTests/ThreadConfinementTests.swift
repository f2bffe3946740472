import Firn
import Foundation
import Testing

/// A live instance, its results and objects used off their thread stop the
/// program naming both threads (exit tests run in a child process).
@Suite struct ThreadConfinementTests {
    @Test func aLiveObjectOnAnotherThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            let dog = Dog()
            try? db.write { try db.add(dog) }
            // Strict concurrency refuses to send a live object to another
            // thread at compile time; the box smuggles it past the compiler
            // to show the run-time check catches what slips through.
            let smuggled = Unchecked(dog)
            useOnAnotherThread { _ = smuggled.value.name }
        }
    }

    @Test func theMessageNamesBothThreads() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            let results = db.objects(Dog.self)
            useOnAnotherThread { _ = results.count }
        }
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(text.contains("Database accessed from incorrect thread"))
        // "bound to thread 12 (…), used from thread 13 (…)": two different kernel thread ids.
        let ids = text.split(separator: "thread ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        #expect(text.contains("bound to thread") && text.contains("used from thread"), "\(text)")
        #expect(ids.count >= 2 && ids[0] != ids[1], "\(text)")
    }

    @Test func aDatabaseOnAnotherThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            useOnAnotherThread { try? db.beginWrite() }
        }
    }

    @Test func frozenValuesAreFine() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        let dog = Dog()
        dog.name = "Rex"
        try db.write { try db.add(dog) }
        let frozen = Unchecked(try dog.freeze())
        let names = SumBox()
        useOnAnotherThread { names.add(frozen.value.name.count) }
        #expect(names.values == [3])
    }
}

/// The collection, aggregate and query additions check their thread too.
@Suite struct ThreadConfinementQueryTests {
    @Test func anAggregateOnAnotherThreadStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            guard let results = try? db.objects(Dog.self).where({ $0.owner.city == "Oslo" }) else { return }
            useOnAnotherThread { _ = try? results.sum(of: \.age) }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Database accessed from incorrect thread"))
    }

    @Test func lastOnAnotherThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let scratch = Scratch()
            guard let db = try? Database(configuration: scratch.configuration()) else { return }
            let results = db.objects(Dog.self)
            useOnAnotherThread { _ = results.last }
        }
    }
}
