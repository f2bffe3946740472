import Foundation
import Testing
import FirnCore
import FirnTestSupport

/// A small database at version 6: tree "t" (one leaf, overflow values of
/// one and three pages), tree "u" (a branch over leaves), tree "e"
/// (empty), and a space tree of one leaf with free, retired and history
/// entries.
struct SmallDatabase {
    let db: String
    let version: UInt64
    /// The catalog's root, the roots of trees t and u, the space tree's root.
    let catalog, t, u, space: UInt64
}

/// Pages of `sampleDatabase` the hostile-input tests damage.
struct SampleLayout {
    var usersRoot, usersLeaf, blobsRoot, overflow, space, catalog: UInt64
}

extension TemporaryDirectory {
    /// `SmallDatabase`, verified clean.
    func smallDatabase() throws -> SmallDatabase {
        let path = self.file("small.firn")
        let store = try Store.open(path, options: .pageCommits)
        for commit in 0..<5 {
            try store.write { txn in
                let t = try #require(try txn.tree("t"))
                let u = try #require(try txn.tree("u"))
                if commit == 0 {
                    for i in 0..<10 { try t.put(bytes("k\(i)"), bytes("v\(i)")) }
                    try t.put(bytes("blob"), (0..<9000).map { UInt8(truncatingIfNeeded: $0) })
                    try t.put(bytes("one"), [UInt8](repeating: 1, count: 3000))
                    for i in 0..<300 { try u.put(bytes(String(format: "u-key-%06d-padding", i)), bytes("value \(i)")) }
                }
                try t.put(bytes("k\(commit)"), bytes("updated \(commit)"))
                try u.put(bytes(String(format: "u-key-%06d-padding", commit * 37)), bytes("changed \(commit)"))
                _ = try txn.tree("e")
            }
        }
        store.close()
        try? FileManager.default.removeItem(atPath: path + ".lock")
        let info = try FirnRun.run(["info", path, "--json"]).json(InfoJSON.self)
        let pages = try FirnRun.run(["dump", path, "--pages", "--json"]).json(PagesJSON.self).pages
        func root(_ name: String) throws -> UInt64 { try #require(info.trees.first { $0.name == name }).rootPage }
        let file = try FileSurgery(path)
        #expect(pages.filter { $0.tree == "(space)" }.map(\.page) == [file.spaceRoot], "the space tree is one leaf")
        #expect(pages.filter { $0.tree == "(catalog)" }.map(\.page) == [file.catalogRoot])
        #expect(pages.first { $0.page == (try? root("u")) }?.type == "branch")
        #expect(info.currentVersion == 6)
        let small = SmallDatabase(db: path, version: info.currentVersion, catalog: file.catalogRoot, t: try root("t"),
                          u: try root("u"), space: file.spaceRoot)
        let verify = try FirnRun.run(["verify", small.db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        return small
    }

    /// The sample database. Unless `keepPreviousSlot`, the slot of the
    /// version before the current one is emptied (as in a packed file): with
    /// it in place, damage to a page the last commit wrote is what a power
    /// loss during that commit leaves, so the newest record is rejected and
    /// the previous version opens clean (FORMAT.md 2.1) — these tests are
    /// about damage `verify` must name.
    func damageableSample(keepPreviousSlot: Bool = false) throws -> (String, SampleLayout) {
        let db = try sampleDatabase()
        try FileManager.default.removeItem(atPath: db + ".lock")
        if !keepPreviousSlot {
            var file = try FileSurgery(db)
            file.zero(page: UInt64(1 - file.currentSlot))
            try file.save()
        }
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"]).json(PagesJSON.self).pages
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        func first(_ match: (PagesJSON.Page) -> Bool) throws -> UInt64 {
            let found = pages.first(where: match)
            return try #require(found).page
        }
        let layout = SampleLayout(
            usersRoot: try #require(info.trees.first { $0.name == "users" }).rootPage,
            usersLeaf: try first { $0.tree == "users" && $0.type == "leaf" },
            blobsRoot: try #require(info.trees.first { $0.name == "blobs" }).rootPage,
            overflow: try first { $0.type == "overflow" },
            space: try first { $0.tree == "(space)" },
            catalog: try first { $0.tree == "(catalog)" })
        return (db, layout)
    }
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
