import Testing
@testable import FirnCore
import FirnTestSupport

/// The packed-image writer: a version streamed as a fresh compact file.
@Suite struct PackedImageTests {
    static func fill(_ store: Store, records: Int, seed: UInt64) throws -> [String: [[UInt8]: [UInt8]]] {
        var rng = SeededGenerator(seed: seed)
        var model: [String: [[UInt8]: [UInt8]]] = [:]
        for batch in 0..<4 {
            try store.write { txn in
                for i in 0..<records / 4 {
                    let name = ["users", "orders", "big"][(i + batch) % 3]
                    let tree = try #require(try txn.tree(name))
                    let key = TreeModel.key(i + batch * records, &rng)
                    let value = name == "big" && i % 7 == 0
                        ? [UInt8](repeating: UInt8(i % 251), count: 9000 + i) : TreeModel.value(&rng).prefix(300).map { $0 }
                    try tree.put(key, value)
                    model[name, default: [:]][key] = value
                }
                _ = try txn.tree("empty")
                model["empty"] = model["empty"] ?? [:]
            }
        }
        // Churn so the source has free and retired pages.
        try store.write { txn in
            let tree = try #require(try txn.tree("users"))
            for key in (model["users"] ?? [:]).keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).prefix(records / 8) {
                try tree.delete(key)
                model["users"]?[key] = nil
            }
        }
        return model
    }

    @Test func packedImageOpensVerifiesCleanAndHoldsTheSameEntries() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("source.firn"))
        let model = try Self.fill(store, records: 2000, seed: 7)
        let snapshot = try store.snapshot()
        let out = try POSIXFile(path: dir.file("packed.firn"), writable: true, create: true)
        let summary = try PackedImageWriter.write(snapshot, to: out)
        out.close()
        #expect(summary.version == snapshot.version)
        #expect(summary.trees == model.count)

        let packed = try Store.open(dir.file("packed.firn"))
        let copy = try packed.snapshot()
        #expect(copy.version == snapshot.version)
        let report = Verifier.verify(copy, slots: try packed.readSlots())
        #expect(report.findings == [])
        #expect(report.freePages == 0 && report.retiredPages == 0)
        #expect(report.reachablePages == summary.pages)
        try TreeModel.expectMatches(copy, model)
        // Packed is smaller than the churned source.
        #expect(summary.bytes < (try store.io.size()))
        // And it accepts new commits.
        copy.close()
        try packed.write { txn in try #require(try txn.tree("users")).put([1, 2, 3], [4]) }
        let after = try packed.snapshot()
        #expect(Verifier.verify(after, slots: try packed.readSlots()).findings == [])
    }

    @Test func streamingEmitsTheSameImageInFileOrder() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("source.firn"))
        _ = try Self.fill(store, records: 600, seed: 11)
        let snapshot = try store.snapshot()
        let out = try POSIXFile(path: dir.file("written.firn"), writable: true, create: true)
        let written = try PackedImageWriter.write(snapshot, to: out)
        var fileBytes = [UInt8](repeating: 0, count: Int(written.bytes))
        _ = try withMutableBytes(&fileBytes) { (b) throws(FirnError) in try out.read(into: b, at: 0) }
        out.close()
        var streamed: [UInt8] = []
        let summary = try PackedImageWriter.stream(snapshot) { page in streamed.append(contentsOf: page) }
        #expect(summary == written)
        #expect(streamed.count == fileBytes.count)
        #expect(streamed == fileBytes)
    }

    @Test func emptyDatabasePacksToTwoPages() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("empty.firn"))
        let out = try POSIXFile(path: dir.file("packed.firn"), writable: true, create: true)
        let summary = try PackedImageWriter.write(try store.snapshot(), to: out)
        out.close()
        #expect(summary.pages == 2)
        let packed = try Store.open(dir.file("packed.firn"))
        #expect(try packed.snapshot().treeNames() == [])
    }
}
