import Testing
@testable import FirnCore
import FirnTestSupport

/// The nodes a commit wrote seed the next transaction of the same store
/// (`WrittenNodes`): only when it builds on that commit's version, and as
/// copies, so nothing the finished transaction handed out changes.
@Suite struct WrittenNodesTests {
    static func key(_ i: Int) -> [UInt8] { Array("key-\(1000 + i)".utf8) }

    @Test func aFinishedTransactionsCursorStillReadsItsVersionAfterLaterCommits() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions()
        options.durability = .none
        let store = try Store.open(dir.file("cursor.firn"), options: options)
        let first = try store.beginWriteBlocking()
        let tree = try #require(try first.tree("t"))
        for i in 0..<50 { try tree.put(Self.key(i), [UInt8(i)]) }
        let cursor = try tree.cursor()
        try first.commit()
        // The next commits rewrite the same leaf and root from the kept nodes.
        for round in 0..<5 {
            try store.write { txn in
                let t = try #require(try txn.tree("t"))
                for i in 0..<50 where i % 5 == round { try t.delete(Self.key(i)) }
                try t.put(Self.key(100 + round), [0xFF])
            }
        }
        var seen: [[UInt8]] = []
        try cursor.first()
        while cursor.isValid {
            seen.append(try #require(try cursor.key))
            try cursor.next()
        }
        #expect(seen == (0..<50).map(Self.key))
        let snapshot = try store.snapshot()
        let now = try #require(try snapshot.tree("t"))
        #expect(now.count == 5)
        #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
    }

    @Test func aCommitByAnotherStoreInBetweenIsBuiltOnNotOverwritten() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions()
        options.durability = .none
        let path = dir.file("two.firn")
        let a = try Store.open(path, options: options)
        let b = try Store.open(path, options: options)
        var model: [[UInt8]: [UInt8]] = [:]
        for round in 0..<40 {
            // Alternate writers, sometimes the same one twice: each commit
            // either builds on the kept nodes of its store's last commit or,
            // when the other store committed since, on the file alone.
            let store = (round % 3 == 0) ? b : a
            try store.write { txn in
                let t = try #require(try txn.tree("t"))
                for i in 0..<3 {
                    let k = Self.key((round * 7 + i * 13) % 60)
                    let v = [UInt8(round), UInt8(i)]
                    try t.put(k, v)
                    model[k] = v
                }
            }
        }
        for store in [a, b] {
            let snapshot = try store.snapshot()
            let t = try #require(try snapshot.tree("t"))
            for (k, v) in model { #expect(try t.get(k)?.array == v) }
            #expect(t.count == UInt64(model.count))
            #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings == [])
        }
    }
}
