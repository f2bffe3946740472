import Firn
import FirnCore
import Foundation
import Testing

/// `maximumNumberOfActiveVersions`: an operation that would leave more
/// distinct versions pinned than the limit throws, listing who pins what.
@Suite struct ActiveVersionLimitTests {
    static func limited(_ scratch: Scratch, _ limit: UInt) -> Configuration {
        var configuration = scratch.configuration()
        configuration.maximumNumberOfActiveVersions = limit
        return configuration
    }

    static func tooMany(_ body: () throws -> Void) -> (operation: String, versions: [UInt64], pins: [PinRecord], text: String)? {
        do {
            try body()
        } catch let error as DatabaseError {
            if case let .tooManyActiveVersions(operation, _, versions, pins, _) = error {
                return (operation, versions, pins, error.description)
            }
        } catch {}
        return nil
    }

    /// As Realm counts: a write is refused when more versions than the
    /// limit are pinned as it begins (its own base included, the version it
    /// will make not). With two pinned and a limit of 2 it goes through.
    @Test func aWriteBeginningWithMoreVersionsPinnedThanTheLimitThrowsListingThePins() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.limited(scratch, 2))
        try Steps.addDogs(db, 0..<1)
        let v1 = db.version
        var frozen = [try db.objects(Dog.self).freeze()]
        try Steps.addDogs(db, 1..<2)  // leaves v1 (frozen) and v2 (the instance)
        let v2 = db.version
        frozen.append(try db.objects(Dog.self).freeze())
        // Two versions pinned, the limit 2: Realm lets this write through.
        try Steps.addDogs(db, 2..<3)
        let v3 = db.version
        #expect(v3 == v2 + 1 && db.objects(Dog.self).count == 3)
        // Now v1, v2 (frozen) and v3 (the instance): three, one too many.
        let refused = try #require(Self.tooMany { try Steps.addDogs(db, 3..<4) })
        #expect(refused.operation == "beginWrite")
        #expect(refused.versions == [v1, v2, v3])
        #expect(refused.pins.map(\.version) == [v1, v2, v3])
        #expect(Set(refused.pins.compactMap(\.kind)) == [.frozen, .read])
        let text = refused.text
        #expect(text.hasPrefix("beginWrite found 3 versions pinned (\(v1), \(v2), \(v3)), more than maximumNumberOfActiveVersions (2)"), "\(text)")
        #expect(text.contains("version \(v1): pid \(getpid()), thread "), "\(text)")
        #expect(text.contains("frozen \"frozen objects\""), "\(text)")
        #expect(text.contains("read \"Database on thread "), "\(text)")
        #expect(text.contains(" held 0."), "\(text)")
        #expect(!db.isInWriteTransaction && db.objects(Dog.self).count == 3)
        // Releasing the old frozen values lets the write through.
        frozen.removeFirst()
        try Steps.addDogs(db, 3..<4)
        #expect(db.objects(Dog.self).count == 4)
    }

    @Test func frozenValuesOfOneVersionCountOnce() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.limited(scratch, 2))
        try Steps.addDogs(db, 0..<3)
        let frozenDatabase = try db.freeze()
        let frozenResults = try db.objects(Dog.self).freeze()
        let frozenDogs = try db.objects(Dog.self).map { try $0.freeze() }
        let ref = try ThreadSafeReference(to: db.objects(Dog.self))  // same version again
        try Steps.addDogs(db, 3..<4)
        #expect(db.objects(Dog.self).count == 4)
        withExtendedLifetime((frozenDatabase, frozenResults, frozenDogs, ref)) {}
    }

    @Test func aNewInstanceThatWouldPinOneVersionTooManyThrows() throws {
        let scratch = Scratch()
        let limited = Self.limited(scratch, 1)
        let db = try Database(configuration: limited)
        try Steps.addDogs(db, 0..<1)
        let frozen = try db.freeze()
        // A writer without the limit moves the latest version on.
        try Steps.commitElsewhere(scratch.configuration(), id: 9)
        let refused = try onNewThread { () -> String? in
            Self.tooMany { _ = try Database(configuration: limited) }?.operation
        }
        #expect(refused == "opening a Database")
        // No pin is left behind by the refused instance.
        #expect(db.store.pins().map(\.version).allSatisfy { $0 == frozen.version } == true)
        // The same instance may not move on either by pinning again.
        db.invalidate()
        #expect(Self.tooMany { _ = try db.refresh() }?.operation == "pinning again after invalidate()")
        withExtendedLifetime(frozen) {}
    }

    @Test func withoutALimitNothingIsRefused() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        var frozen: [Results<Dog>] = []
        for id in 0..<5 {
            try Steps.addDogs(db, id..<(id + 1))
            frozen.append(try db.objects(Dog.self).freeze())
        }
        #expect(Set(Steps.frozenPins(db).map(\.version)).count == 5)
    }
}
