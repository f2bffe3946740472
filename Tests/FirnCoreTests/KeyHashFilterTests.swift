import Testing
@testable import FirnCore
import FirnTestSupport

/// The epoch's key filter (`KeyHashFilter`): every hash inserted is found,
/// through the table's growth and for a hash of 0; hashes never inserted
/// are mostly not; and a key's hash depends on its tree, its length and
/// every byte.
@Suite struct KeyHashFilterTests {
    @Test func everyInsertedHashIsFoundThroughGrowth() {
        var filter = KeyHashFilter()
        #expect(!filter.contains(7))  // empty: no table yet
        var rng = SeededGenerator(seed: 5)
        var inserted: [UInt64] = [0, 1, UInt64.max]
        for _ in 0..<5_000 { inserted.append(rng.next()) }
        for hash in inserted { filter.insert(hash) }
        for hash in inserted { filter.insert(hash) }  // again: no second slot
        #expect(filter.count == Set(inserted.map { $0 == 0 ? 1 : $0 }).count)
        #expect(inserted.allSatisfy { filter.contains($0) })
        // Hashes never inserted: an answer of "maybe" would only cost a
        // lookup, but the table stores whole hashes, so none is found.
        let absent = (0..<5_000).map { _ in rng.next() }.filter { !inserted.contains($0) }
        #expect(absent.filter { filter.contains($0) }.isEmpty)
    }

    @Test func aKeysHashDependsOnItsTreeItsLengthAndEveryByte() {
        let t = KeyHashFilter.seed("t"), u = KeyHashFilter.seed("u")
        #expect(t != u)
        #expect(KeyHashFilter.seed("t") == t)  // one seed per process
        func hash(_ bytes: [UInt8], _ seed: UInt64) -> UInt64 {
            bytes.withUnsafeBytes { KeyHashFilter.hash($0, seed: seed) }
        }
        var hashes = Set<UInt64>()
        // Every length up to 24 (whole words and tails), every byte flipped.
        for length in 0...24 {
            let key = [UInt8](repeating: 0x5A, count: length)
            hashes.insert(hash(key, t))
            for i in 0..<length {
                var flipped = key
                flipped[i] ^= 0x01
                hashes.insert(hash(flipped, t))
            }
        }
        #expect(hashes.count == 25 + (0...24).reduce(0, +))
        #expect(hash([1, 2, 3], t) != hash([1, 2, 3], u))
        #expect(hash([1, 2, 3], t) == hash([1, 2, 3], t))
        #expect(hash([], t) != hash([0], t))
    }
}
