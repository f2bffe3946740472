import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// What `verify` accepts survives `dump --entries | load`, `compact` and
/// `export`/`import` unchanged; what the writer API cannot produce (bad
/// tree names, keys and values beyond the limits of docs/FORMAT.md) is a
/// finding of `verify`, and the tools fail loudly on it or carry the data
/// through byte for byte — never skip or rename anything.
@Suite struct RoundTripTests {
    // MARK: a file that verifies clean round-trips

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Many trees with awkward names, keys at the limits, empty values and
    /// overflow values, built over several commits with churn (free and
    /// retired pages, a dropped and recreated tree).
    static func awkwardDatabase(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("awkward.firn")
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        let limit = store.geometry.maxKeyLength
        let names = [
            "plain", "with space", "ünïcødé ☃", "(starts with a parenthesis", "(catalog)", "(space)",
            "tab\tand\nnewline", "quote\"back\\slash", String(repeating: "n", count: limit), "dropped and recreated",
        ] + (0..<150).map { "tree-\($0)" }
        // The longest value a key of 4 bytes keeps inline, and one byte more.
        let inlineMax = store.geometry.capacity / 3 - 2 - 8 - 4
        for commit in 0..<4 {
            try store.write { txn in
                for (n, name) in names.enumerated() {
                    let tree = try #require(try txn.tree(name))
                    if n >= 10 && n % 7 != commit { continue }
                    try tree.put(bytes("k\(commit)"), bytes("value \(commit) of \(name)"))
                    try tree.put([], [])
                    try tree.put([UInt8](repeating: 0xFF, count: limit), [UInt8](repeating: UInt8(commit), count: 10))
                    try tree.put(bytes("max\(commit)") + [UInt8](repeating: 0x41, count: limit - 4), [])
                    try tree.put([0, 1, 2, 0x80, 0xFE], [0xC0, 0xAF, 0xED, 0xA0, 0x80])
                    try tree.put(bytes("edge"), [UInt8](repeating: 1, count: inlineMax))
                    try tree.put(bytes("edg+"), [UInt8](repeating: 2, count: inlineMax + 1))
                    try tree.put(bytes("big\(commit)"), (0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ commit) })
                    try tree.put(bytes("two pages exactly"), [UInt8](repeating: 3, count: 2 * (store.pageSize - 52)))
                    if commit > 0 { try tree.delete(bytes("k\(commit - 1)")) }
                }
                let big = try #require(try txn.tree("big"))
                for i in 0..<3000 { try big.put(bytes(String(format: "key:%06d", i * 4 + commit)), bytes("v\(i)")) }
                _ = try txn.tree("empty tree")
                if commit == 2 {
                    #expect(try txn.dropTree("dropped and recreated"))
                    try #require(try txn.tree("dropped and recreated")).put(bytes("again"), bytes("yes"))
                }
            }
        }
        return path
    }

    static func entries(_ db: String, hex: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let run = try FirnRun.run(["dump", db, "--entries"] + (hex ? ["--hex"] : []), timeout: 120)
        #expect(run.status == 0, "dump \(db): \(run.stderr)", sourceLocation: sourceLocation)
        return run.stdout
    }

    static func expectClean(_ db: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let verify = try FirnRun.run(["verify", db], timeout: 120)
        #expect(verify.status == 0, "verify \(db): \(verify.stdout)\(verify.stderr)", sourceLocation: sourceLocation)
    }

    @Test func aFileThatVerifiesCleanSurvivesLoadCompactAndExportImportByteForByte() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.awkwardDatabase(dir)
        try Self.expectClean(db)
        let before = try Self.entries(db)
        #expect(before.contains("\"(catalog)\"\t") && before.contains("\"(starts with a parenthesis\"\t"))
        #expect(before.contains("\"empty tree\"\n"))
        #expect(before.contains("\"tab\\tand\\nnewline\"\t"))

        // dump --entries | load, in text and in hex.
        for (name, hex) in [("loaded.firn", false), ("loaded-hex.firn", true)] {
            let dump = try Self.entries(db, hex: hex)
            let load = try FirnRun.run(["load", dir.file(name), "--batch", "1000"], stdin: Data(dump.utf8), timeout: 120)
            #expect(load.status == 0, "load: \(load.stderr)")
            try Self.expectClean(dir.file(name))
            #expect(try Self.entries(dir.file(name)) == before, "\(name)")
        }

        // compact to a copy, then in place.
        let compact = try FirnRun.run(["compact", db, "-o", dir.file("packed.firn")], timeout: 120)
        #expect(compact.status == 0, "compact: \(compact.stderr)")
        try Self.expectClean(dir.file("packed.firn"))
        #expect(try Self.entries(dir.file("packed.firn")) == before)

        // export and import.
        let export = try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")], timeout: 120)
        #expect(export.status == 0, "export: \(export.stderr)")
        let restore = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn")], timeout: 120)
        #expect(restore.status == 0, "import: \(restore.stderr)")
        try Self.expectClean(dir.file("restored.firn"))
        #expect(try Self.entries(dir.file("restored.firn")) == before)

        let inPlace = try FirnRun.run(["compact", db], timeout: 120)
        #expect(inPlace.status == 0, "compact in place: \(inPlace.stderr)")
        try Self.expectClean(db)
        #expect(try Self.entries(db) == before)
        // A packed image round-trips too.
        let again = try FirnRun.run(["compact", dir.file("packed.firn"), "-o", dir.file("repacked.firn")], timeout: 120)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.entries(dir.file("repacked.firn")) == before)
    }

    // MARK: what the writer never produces is a finding, and never silently changed

    struct Sample {
        let db: String
        let catalog: UInt64
        let usersRoot: UInt64
        let ordersRoot: UInt64
    }

    static func sample(_ dir: TemporaryDirectory) throws -> Sample {
        let (db, layout) = try dir.damageableSample()
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        let orders = try #require(info.trees.first { $0.name == "orders" })
        #expect(orders.depth == 1)
        let file = try FileSurgery(db)
        #expect(file.catalogRoot == layout.catalog && file.leafCells(layout.catalog).map(\.key)
                == [Self.bytes("blobs"), Self.bytes("orders"), Self.bytes("users")])
        return Sample(db: db, catalog: layout.catalog, usersRoot: layout.usersRoot, ordersRoot: orders.rootPage)
    }

    /// `verify` exits 65 with a finding that names `page` and says `words`.
    static func expectFinding(_ db: String, page: UInt64, _ words: [String],
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try FirnRun.run(["verify", db], timeout: 60)
        let text = run.stdout + run.stderr
        #expect(run.status == 65, "\(text)", sourceLocation: sourceLocation)
        #expect(run.isCleanFailure, "\(run.stderr)", sourceLocation: sourceLocation)
        let finding = text.split(separator: "\n").first { line in
            line.hasPrefix("FINDING: page \(page),") && words.allSatisfy { line.contains($0) }
        }
        #expect(finding != nil, "no finding on page \(page) saying \(words): \(text)", sourceLocation: sourceLocation)
    }

    /// Every copying tool either fails loudly (65, one line, nothing
    /// written, the original untouched) or carries every entry through
    /// unchanged. With `failsNaming`, the tools must fail, naming that page.
    static func expectNoSilentChange(_ db: String, _ dir: TemporaryDirectory, failsNaming page: UInt64? = nil,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: db))
        let dump = try FirnRun.run(["dump", db, "--entries"], timeout: 60)
        #expect(dump.isCleanFailure, "dump: \(dump.stderr)", sourceLocation: sourceLocation)
        if let page {
            #expect(dump.status == 65 && dump.stderr.contains("page \(page)"), "dump: \(dump.status) \(dump.stderr)",
                    sourceLocation: sourceLocation)
        } else {
            #expect(dump.status == 0, "dump: \(dump.stderr)", sourceLocation: sourceLocation)
        }
        func sameEntries(_ copy: String, _ what: String) throws {
            let copied = try FirnRun.run(["dump", copy, "--entries"], timeout: 60)
            #expect(copied.status == 0 && copied.stdout == dump.stdout, "\(what) changed the entries",
                    sourceLocation: sourceLocation)
        }
        if dump.status == 0 {
            let load = try FirnRun.run(["load", dir.file("loaded.firn")], stdin: Data(dump.stdout.utf8), timeout: 60)
            #expect(load.isCleanFailure, "load: \(load.stderr)", sourceLocation: sourceLocation)
            if load.status == 0 { try sameEntries(dir.file("loaded.firn"), "dump | load") }
        }
        for (index, arguments) in [["compact", db, "-o", dir.file("compacted.firn")], ["compact", db]].enumerated() {
            let run = try FirnRun.run(arguments, timeout: 60)
            #expect(run.isCleanFailure, "\(arguments): \(run.stderr)", sourceLocation: sourceLocation)
            if page != nil || run.status != 0 {
                #expect(run.status == 65, "\(arguments): \(run.status) \(run.stderr)", sourceLocation: sourceLocation)
                if index == 0 {
                    #expect(!FileManager.default.fileExists(atPath: dir.file("compacted.firn")), sourceLocation: sourceLocation)
                }
            } else if index == 0 {
                try sameEntries(dir.file("compacted.firn"), "compact -o")
            }
            if run.status != 0 {
                #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == original, "a failed \(arguments) changed the file",
                        sourceLocation: sourceLocation)
            }
        }
        let export = try FirnRun.run(["export", db, "-o", dir.file("snap.lz4")], timeout: 60)
        #expect(export.isCleanFailure, "export: \(export.stderr)", sourceLocation: sourceLocation)
        if page != nil || export.status != 0 {
            #expect(export.status == 65, "export: \(export.status) \(export.stderr)", sourceLocation: sourceLocation)
            #expect(!FileManager.default.fileExists(atPath: dir.file("snap.lz4")), sourceLocation: sourceLocation)
        } else {
            let restore = try FirnRun.run(["import", dir.file("snap.lz4"), "-o", dir.file("restored.firn")], timeout: 60)
            #expect(restore.isCleanFailure && (restore.status == 0 || restore.status == 65), "import: \(restore.stderr)",
                    sourceLocation: sourceLocation)
            if restore.status == 0 {
                try sameEntries(dir.file("restored.firn"), "export | import")
            } else {
                #expect(!FileManager.default.fileExists(atPath: dir.file("restored.firn")), sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aTreeNameThatIsNotUTF8IsAFindingAndNoToolRenamesIt() throws {
        let dir = try TemporaryDirectory()
        let sample = try Self.sample(dir)
        try FileSurgery.rewriteLeaf(sample.db, sample.catalog, parents: []) { cells in
            cells[2].key = [0x75, 0xFF, 0x65, 0x72, 0x73]  // "u\xFFers": still after "orders"
        }
        try Self.expectFinding(sample.db, page: sample.catalog, ["name:", "not valid UTF-8", "x75ff657273"])
        try Self.expectNoSilentChange(sample.db, dir, failsNaming: sample.catalog)
        let info = try FirnRun.run(["info", sample.db])
        #expect(info.status == 65 && info.stderr.contains("not valid UTF-8"), "\(info.stderr)")
    }

    @Test func anEmptyTreeNameIsAFindingAndNoToolSkipsIt() throws {
        let dir = try TemporaryDirectory()
        let sample = try Self.sample(dir)
        try FileSurgery.rewriteLeaf(sample.db, sample.catalog, parents: []) { cells in
            cells[0].key = []  // "blobs" becomes ""
        }
        try Self.expectFinding(sample.db, page: sample.catalog, ["name:", "tree name is empty"])
        try Self.expectNoSilentChange(sample.db, dir, failsNaming: sample.catalog)
    }

    @Test func aTreeNameLongerThanTheKeyLimitIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let sample = try Self.sample(dir)
        try FileSurgery.rewriteLeaf(sample.db, sample.catalog, parents: []) { cells in
            cells[2].key = Self.bytes("users") + [UInt8](repeating: 0x78, count: 1100)
        }
        try Self.expectFinding(sample.db, page: sample.catalog, ["name:", "longer than the key limit of 1024"])
        try Self.expectNoSilentChange(sample.db, dir, failsNaming: sample.catalog)
    }

    @Test func aKeyLongerThanTheKeyLimitIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let sample = try Self.sample(dir)
        var last = 0
        try FileSurgery.rewriteLeaf(sample.db, sample.ordersRoot, parents: [sample.catalog]) { cells in
            last = cells.count - 1
            cells[last].key += [UInt8](repeating: 0x7A, count: 1100)
        }
        try Self.expectFinding(sample.db, page: sample.ordersRoot, ["limit:", "key \(last) is longer than the key limit",
                                                                    "found 1110 bytes"])
        try Self.expectNoSilentChange(sample.db, dir)
    }

    @Test func aBranchSeparatorLongerThanTheKeyLimitIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let sample = try Self.sample(dir)
        var file = try FileSurgery(sample.db)
        var cells = file.branchCells(sample.usersRoot)
        // Just above every key of child 0, still below child 1's keys.
        let lastOfChild0 = try #require(file.leafCells(cells[0].childPage).last).key
        cells[1].key = lastOfChild0 + [UInt8](repeating: 0, count: 1100)
        file.writeBranch(sample.usersRoot, cells)
        file.resealChain(sample.usersRoot, parents: [sample.catalog])
        try file.save()
        try Self.expectFinding(sample.db, page: sample.usersRoot, ["limit:", "separator 1 is longer than the key limit"])
        try Self.expectNoSilentChange(sample.db, dir)
    }

    @Test func anInlineValueBeyondTheInlineLimitIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let sample = try Self.sample(dir)
        try FileSurgery.rewriteLeaf(sample.db, sample.ordersRoot, parents: [sample.catalog]) { cells in
            cells[3] = .inline(cells[3].key, [UInt8](repeating: 0x55, count: 1400))
        }
        try Self.expectFinding(sample.db, page: sample.ordersRoot, ["limit:", "leaf cell 3", "breaks the inline limit"])
        try Self.expectNoSilentChange(sample.db, dir)
    }
}
