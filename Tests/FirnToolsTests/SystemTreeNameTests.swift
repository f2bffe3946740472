import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// User trees whose names look like the system trees — "(catalog)",
/// "(space)", "(x" — are user trees: reports mark system trees by kind, not
/// by name, and every count includes the user's trees exactly once.
@Suite struct SystemTreeNameTests {
    static let userTrees: [(name: String, entries: Int)] = [("(catalog)", 3), ("(space)", 5), ("(x", 7), ("users", 11)]

    static func database(in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("parens.firn")
        let store = try Store.open(path)
        defer { store.close() }
        try store.write { txn in
            for (name, entries) in userTrees {
                guard let tree = try txn.tree(name) else { return }
                for i in 0..<entries { _ = try tree.put(Array("key:\(i)".utf8), Array("\(name) value \(i)".utf8)) }
            }
        }
        return path
    }

    struct Tree: Decodable { let name: String; let kind: String; let entries: UInt64 }

    @Test func verifyReportsEachUserTreeOnceAndTheSystemTreesByKind() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(in: dir)
        struct VerifyJSON: Decodable {
            struct Inner: Decodable { let trees: [Tree] }
            let clean: Bool; let verify: Inner
        }
        let run = try FirnRun.run(["verify", db, "--json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let report = try run.json(VerifyJSON.self)
        let user = report.verify.trees.filter { $0.kind == "user" }
        #expect(user.map(\.name).sorted() == Self.userTrees.map(\.name).sorted())
        for (name, entries) in Self.userTrees {
            #expect(user.first { $0.name == name }?.entries == UInt64(entries), "\(name)")
        }
        #expect(report.verify.trees.filter { $0.kind == "catalog" }.map(\.entries) == [4])
        #expect(report.verify.trees.filter { $0.kind == "space" }.count == 1)
        #expect(report.verify.trees.count == 6)
        let text = try FirnRun.run(["verify", db])
        #expect(text.stdout.components(separatedBy: "(x").count - 1 == 1, "\(text.stdout)")
    }

    @Test func dumpCountsAndCarriesEveryUserTree() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(in: dir)
        struct DumpJSON: Decodable { let trees: [Tree] }
        let structure = try FirnRun.run(["dump", db, "--json"]).json(DumpJSON.self)
        let user = structure.trees.filter { $0.kind == "user" }
        #expect(user.map(\.name).sorted() == Self.userTrees.map(\.name).sorted())
        for (name, entries) in Self.userTrees {
            #expect(user.first { $0.name == name }?.entries == UInt64(entries), "\(name)")
        }
        #expect(structure.trees.filter { $0.kind != "user" }.map(\.kind).sorted() == ["catalog", "space"])

        // Every user tree's entries, and they load back unchanged.
        let entries = try FirnRun.run(["dump", db, "--entries"])
        #expect(entries.status == 0)
        #expect(entries.stdout.split(separator: "\n").count == 1 + Self.userTrees.reduce(0) { $0 + $1.entries })
        let load = try FirnRun.run(["load", dir.file("copy.firn")], stdin: Data(entries.stdout.utf8))
        #expect(load.status == 0, "\(load.stderr)")
        #expect(try FirnRun.run(["dump", dir.file("copy.firn"), "--entries"]).stdout == entries.stdout)

        // --tree names the user's tree when one has that name.
        let one = try FirnRun.run(["dump", db, "--tree", "(catalog)", "--json"]).json(DumpJSON.self)
        #expect(one.trees.map(\.kind) == ["user"] && one.trees.first?.entries == 3)
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"])
        struct PagesKindJSON: Decodable { struct Page: Decodable { let tree: String; let treeKind: String }; let pages: [Page] }
        let kinds = Set(try pages.json(PagesKindJSON.self).pages.map { "\($0.treeKind) \($0.tree)" })
        #expect(kinds.isSuperset(of: ["user (catalog)", "user (space)", "user (x", "catalog (catalog)", "space (space)"]))
    }

    @Test func importCountsEveryUserTreesEntries() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(in: dir)
        #expect(try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")]).status == 0)
        let run = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn")])
        #expect(run.status == 0, "\(run.stderr)")
        let total = Self.userTrees.reduce(0) { $0 + $1.entries }
        #expect(run.stdout.contains("(\(total) entries,"), "\(run.stdout)")
        struct ImportJSON: Decodable { let trees: [Tree] }
        let json = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("again.firn"), "--json"]).json(ImportJSON.self)
        #expect(json.trees.filter { $0.kind == "user" }.reduce(0) { $0 + $1.entries } == UInt64(total))
    }
}
