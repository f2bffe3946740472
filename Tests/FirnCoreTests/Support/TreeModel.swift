import Testing
@testable import FirnCore
import FirnTestSupport

/// Random keys and values for trees checked against a model (a dictionary
/// per tree), and the check (`TreeModelTests`, `PackedImageTests`).
enum TreeModel {
    static func key(_ n: Int, _ rng: inout SeededGenerator) -> [UInt8] {
        // Variable-length keys sharing prefixes, some long.
        let length = [4, 8, 16, 40, 200][Int(rng.next() % 5)]
        var key = Array("k\(n)-".utf8)
        while key.count < length { key.append(UInt8(truncatingIfNeeded: n &* 31 &+ key.count)) }
        return key
    }

    static func value(_ rng: inout SeededGenerator) -> [UInt8] {
        let sizes = [0, 1, 10, 100, 900, 5000, 20000]
        let size = sizes[Int(rng.next() % UInt64(sizes.count))]
        return (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func expectMatches(_ snapshot: Snapshot, _ model: [String: [[UInt8]: [UInt8]]]) throws {
        #expect(try snapshot.treeNames().sorted() == model.keys.sorted())
        for (name, entries) in model {
            let tree = try #require(try snapshot.tree(name))
            #expect(tree.count == UInt64(entries.count), "count of \(name) at v\(snapshot.version)")
            let cursor = tree.cursor()
            try cursor.first()
            var walked: [[UInt8]] = []
            while cursor.isValid {
                let key = try #require(try cursor.key)
                walked.append(key)
                #expect(try cursor.value == entries[key], "value of a key in \(name) at v\(snapshot.version)")
                try cursor.next()
            }
            let sorted = entries.keys.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(walked == sorted, "ordered walk of \(name) at v\(snapshot.version)")
            for key in sorted.prefix(50) {
                #expect(try tree.get(key)?.array == entries[key])
            }
            // Backwards.
            try cursor.last()
            var back: [[UInt8]] = []
            while cursor.isValid, back.count < 30 {
                back.append(try #require(try cursor.key))
                try cursor.previous()
            }
            #expect(back == Array(sorted.reversed().prefix(30)))
        }
    }
}
