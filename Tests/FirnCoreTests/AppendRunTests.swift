import Testing
@testable import FirnCore
import FirnTestSupport

/// A put of a key past the tree's last key goes straight into the
/// rightmost leaf the last put appended to (`MutableTree.appendLeaf`): one
/// descent per leaf for a sorted run. Runs of ascending keys mixed with
/// puts in the middle, replacements, deletions near the end and commits in
/// between must leave exactly the model's entries in a file that verifies
/// clean, on page commits and through the commit log's checkpoint replay.
@Suite struct AppendRunTests {
    static func key(_ n: Int) -> [UInt8] { withUnsafeBytes(of: UInt64(n).bigEndian) { Array($0) } }

    @Test(arguments: [true, false])
    func appendRunsMixedWithOtherChangesKeepEveryEntry(pageCommits: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("append.firn")
        var model: [[UInt8]: [UInt8]] = [:]
        var rng = SeededGenerator(seed: 5)
        var next = 1_000
        do {
            let store = try Store.open(path, options: pageCommits ? .pageCommits : StoreOptions())
            defer { store.close() }
            for round in 0..<6 {
                try store.write { txn in
                    let tree = try #require(try txn.tree("t", create: true))
                    for step in 0..<3_000 {
                        let value = [UInt8](repeating: UInt8(truncatingIfNeeded: step), count: Int(rng.below(120)) + 1)
                        switch rng.below(20) {
                        case 0 where !model.isEmpty:
                            // A key in the middle: the next append must descend again.
                            let key = Self.key(Int(rng.below(UInt64(next))))
                            try tree.put(key, value)
                            model[key] = value
                        case 1 where !model.isEmpty:
                            // The last key or one near it goes; the next append lands past it.
                            let key = Self.key(next - 1 - Int(rng.below(3)))
                            if model[key] != nil {
                                #expect(try tree.delete(key))
                                model[key] = nil
                            }
                        case 2 where !model.isEmpty:
                            // The last key again: a replacement, not an append.
                            let key = Self.key(next - 1)
                            try tree.put(key, value)
                            model[key] = value
                        default:
                            next += 1 + Int(rng.below(2))
                            let key = Self.key(next - 1)
                            try tree.put(key, value)
                            model[key] = value
                        }
                    }
                    #expect(tree.count == UInt64(model.count), "round \(round)")
                }
            }
            _ = try store.checkpoint()
        }
        let report = try Verifier.verifyFile(at: path)
        #expect(report.findings.isEmpty, "\(report.findings)")
        let store = try Store.open(path, options: .readOnlyExisting)
        defer { store.close() }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        let tree = try #require(try snapshot.tree("t"))
        let walked = try tree.cursor().allEntries()
        let expected = model.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        #expect(walked.map(\.key) == expected.map(\.key))
        #expect(walked.map(\.value) == expected.map(\.value))
    }
}
