import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// Each rule docs/FORMAT.md states about a field, broken alone in a file
/// whose checksums are all correct (the Merkle references re-sealed up to
/// the commit slot): `verify` exits 65 with a finding that names the page
/// and says what is wrong.
@Suite struct FormatRuleTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func le64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }

    static func expectClean(_ db: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try FirnRun.run(["verify", db])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
    }

    /// `verify` exits 65, and one finding names `page` (nil: any) and says every one of `words`.
    static func expectFinding(_ db: String, page: UInt64?, _ words: [String],
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try FirnRun.run(["verify", db])
        let text = run.stdout + run.stderr
        #expect(run.status == 65, "\(text)", sourceLocation: sourceLocation)
        #expect(run.isCleanFailure, "\(run.stderr)", sourceLocation: sourceLocation)
        let finding = text.split(separator: "\n").first { line in
            line.hasPrefix(page.map { "FINDING: page \($0)," } ?? "FINDING: ") && words.allSatisfy { line.contains($0) }
        }
        #expect(finding != nil, "no finding\(page.map { " on page \($0)" } ?? "") saying \(words): \(text)",
                sourceLocation: sourceLocation)
    }

    /// The "blob" value's chain in "t": head, second and last page, and the leaf cell.
    static func blobChain(_ file: FileSurgery, _ small: SmallDatabase) throws -> (pages: [UInt64], cell: Int) {
        let index = try #require(file.leafIndex(small.t, key: bytes("blob")))
        let payload = file.leafCells(small.t)[index].payload
        var pages = [le64(payload, 0)]
        while pages.count < 3 { pages.append(file.u64(file.offset(try #require(pages.last)) + 32)) }
        #expect(le64(payload, 20) == 9000 && file.u64(file.offset(pages[2]) + 32) == 0)
        return (pages, index)
    }

    // MARK: 5.1, 5.4: where a value lives

    @Test func anOverflowValueThatFitsInlineIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        let index = try #require(file.leafIndex(small.t, key: Self.bytes("one")))
        var cells = file.leafCells(small.t)
        let head = Self.le64(cells[index].payload, 0)
        file.put32(100, file.offset(head) + 4)  // the chain now carries 100 bytes
        for i in 0..<8 { cells[index].payload[20 + i] = i == 0 ? 100 : 0 }
        file.writeLeaf(small.t, cells)
        file.resealChain(head, parents: [small.t, small.catalog])
        try file.save()
        try Self.expectFinding(small.db, page: small.t, ["limit:", "value that fits inline"])
    }

    // MARK: 5.3: overflow chains

    @Test(arguments: ["a short page", "an extra page", "a next reference after the last page"])
    func anOverflowChainOfTheWrongShapeIsAFinding(_ defect: String) throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        let (pages, index) = try Self.blobChain(file, small)
        var cells = file.leafCells(small.t)
        let expected: (UInt64, [String])
        switch defect {
        case "a short page":
            // 2000 + 4044 + 2956 bytes: the right total, the wrong split.
            file.put32(2000, file.offset(pages[0]) + 4)
            file.put32(2956, file.offset(pages[2]) + 4)
            expected = (pages[0], ["overflow:", "payload length", "expected 4044 payload bytes (page 1 of 3)", "found 2000"])
        case "an extra page":
            // 4044 + 4044 + 0 bytes for a value of 8088: two pages would do.
            file.put32(0, file.offset(pages[2]) + 4)
            for i in 0..<8 { cells[index].payload[20 + i] = UInt8(truncatingIfNeeded: UInt64(8088) >> (8 * UInt64(i))) }
            file.writeLeaf(small.t, cells)
            expected = (pages[1], ["overflow:", "goes on past its value's last page"])
        default:
            // The last page's next reference: page 0, but a birth.
            file.put64(5, file.offset(pages[2]) + 32 + 8)
            expected = (pages[2], ["overflow:", "next reference all zero"])
        }
        file.resealChain(pages[2], parents: [pages[1], pages[0], small.t, small.catalog])
        try file.save()
        try Self.expectFinding(small.db, page: expected.0, expected.1)
    }

    // MARK: 5, 5.2: tree shape

    @Test func aNonEmptyFirstSeparatorIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        var cells = file.branchCells(small.u)
        cells[0].key = Self.bytes("u")
        file.writeBranch(small.u, cells)
        file.resealChain(small.u, parents: [small.catalog])
        try file.save()
        try Self.expectFinding(small.db, page: small.u, ["structure:", "first separator", "found 1 bytes"])
    }

    /// A key length that makes a leaf cell run into the next cell in the
    /// page: each cell alone fits the page, so only the overlap shows it
    /// (issue "Nothing laundered" §1: verify said 0, `dump --entries` 0
    /// with a garbled key).
    @Test func overlappingLeafCellsAreAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        let index = try #require(file.leafIndex(small.t, key: Self.bytes("k1")))
        let at = file.cell(small.t, index)
        let offsets = (0..<Int(file.u16(file.offset(small.t) + 2))).map { file.cell(small.t, $0) }
        let next = try #require(offsets.filter { $0 > at }.min(), "a cell after k1's in the page")
        // Four bytes into the next cell; the value (its length unchanged) still ends inside the page.
        let longer = next - at - 8 + 4
        let valueLength = Int(file.u32(at + 4))
        try #require(at + 8 + longer + valueLength <= file.offset(small.t) + file.pageSize)
        file.put16(UInt16(longer), at)
        file.resealChain(small.t, parents: [small.catalog])
        try file.save()
        try Self.expectFinding(small.db, page: small.t, ["structure:", "overlap"])
    }

    @Test func anEmptyLeafIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        file.writeLeaf(small.t, [])
        var catalog = file.leafCells(small.catalog)
        let entry = try #require(catalog.firstIndex { $0.key == Self.bytes("t") })
        for i in 20..<28 { catalog[entry].payload[i] = 0 }  // the catalog's count agrees: 0 entries
        file.writeLeaf(small.catalog, catalog)
        file.resealChain(small.t, parents: [small.catalog])
        try file.save()
        try Self.expectFinding(small.db, page: small.t, ["structure:", "empty leaf page"])
    }

    /// A tree "deep" of 20,000 entries in page commits: a root, branches,
    /// leaves. The file and the tree as `info --json` describes it.
    static func deepTree(_ dir: TemporaryDirectory) throws -> (path: String, tree: InfoJSON.Tree) {
        let path = dir.file("deep.firn")
        let store = try Store.open(path, options: .pageCommits)
        try store.write { txn in
            let tree = try #require(try txn.tree("deep"))
            for i in 0..<20_000 { try tree.put(Self.bytes(String(format: "deep-key-%08d-", i) + String(repeating: "p", count: 24)), [1]) }
        }
        store.close()
        let info = try FirnRun.run(["info", path, "--json"]).json(InfoJSON.self)
        return (path, try #require(info.trees.first))
    }

    @Test func separatorsOutsideTheParentsBoundsAreAFinding() throws {
        let dir = try TemporaryDirectory()
        let (path, tree) = try Self.deepTree(dir)
        #expect(tree.depth == 3)
        var file = try FileSurgery(path)
        let root = file.branchCells(tree.rootPage)
        let branch = root[1].childPage
        var cells = file.branchCells(branch)
        cells[1].key = root[1].key  // equal to the page's lower bound
        file.writeBranch(branch, cells)
        file.resealChain(branch, parents: [tree.rootPage, file.catalogRoot])
        try file.save()
        try Self.expectFinding(path, page: branch, ["order:", "separator 1 is not above the page's lower bound"])
    }

    /// A leaf key below the separator its parent gives the leaf, or at or
    /// above the next one, in order within its own page (the leaf check's
    /// one-pass path must leave such a page to the cell-by-cell loop).
    @Test(arguments: ["below", "above"])
    func aLeafKeyOutsideItsParentsBoundsIsAFinding(_ side: String) throws {
        let dir = try TemporaryDirectory()
        let (path, tree) = try Self.deepTree(dir)
        var file = try FileSurgery(path)
        let branch = file.branchCells(tree.rootPage)[1].childPage
        let separators = file.branchCells(branch)
        let leaf = separators[1].childPage
        var cells = file.leafCells(leaf)
        let words: [String]
        if side == "below" {
            // Just below the separator, above the leaf before's keys by nothing it checks: still first in its page.
            cells[0].key = Array(separators[1].key.dropLast()) + [separators[1].key.last.map { $0 &- 1 } ?? 0]
            words = ["order:", "key 0 is below its parent's separator for this page"]
        } else {
            // The next separator itself as the last key: still after the key before it in the page.
            let last = cells.count - 1
            cells[last].key = separators[2].key
            words = ["order:", "key \(last) is at or above the next separator in the parent"]
        }
        file.writeLeaf(leaf, cells)
        file.resealChain(leaf, parents: [branch, tree.rootPage, file.catalogRoot])
        try file.save()
        try Self.expectFinding(path, page: leaf, words)
    }

    // MARK: 3, 4: births

    @Test(arguments: ["newer than its parent", "birth 0"])
    func aPageBirthOutOfOrderIsAFinding(_ defect: String) throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        if defect == "birth 0" {
            file.setBirth(small.t, to: 0, referencedFrom: small.catalog)
            file.resealChain(small.t, parents: [small.catalog])
            try file.save()
            try Self.expectFinding(small.db, page: small.t, ["birth:", "page birth 0"])
        } else {
            // The branch claims an older birth than a leaf it references.
            let leaves = file.branchCells(small.u).map(\.childPage)
            let newest = try #require(leaves.map { file.birth($0) }.max())
            #expect(newest > 2)
            file.setBirth(small.u, to: newest - 1, referencedFrom: small.catalog)
            file.resealChain(small.u, parents: [small.catalog])
            try file.save()
            let leaf = try #require(leaves.first { file.birth($0) == newest })
            try Self.expectFinding(small.db, page: leaf, ["birth:", "newer than the page that references it"])
        }
    }

    // MARK: reserved fields

    @Test(arguments: [
        "page header offset 24", "page header payload length", "leaf cell reserved byte", "leaf cell flag bit 1",
        "overflow cell inline length", "catalog entry offset 28", "commit record offset 104", "slot page after the record",
        "none reference with a birth",
    ])
    func aNonZeroReservedFieldIsAFinding(_ field: String) throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var file = try FileSurgery(small.db)
        var page: UInt64? = small.t
        var words = ["reserved:"]
        switch field {
        case "page header offset 24":
            file.put32(1, file.offset(small.t) + 24)
            words.append("offset 24")
        case "page header payload length":
            file.put32(7, file.offset(small.t) + 4)
            words.append("offset 4")
        case "leaf cell reserved byte":
            file.bytes[file.cell(small.t, 0) + 3] = 1
            words.append("leaf cell 0 reserved byte")
        case "leaf cell flag bit 1":
            file.bytes[file.cell(small.t, 0) + 2] |= 2
            words.append("undefined flag bit")
        case "overflow cell inline length":
            let index = try #require(file.leafIndex(small.t, key: Self.bytes("one")))
            file.put32(5, file.cell(small.t, index) + 4)
            words.append("non-zero inline value length")
        case "catalog entry offset 28":
            let index = try #require(file.leafIndex(small.catalog, key: Self.bytes("t")))
            file.put32(9, file.cell(small.catalog, index) + 8 + 1 + 28)
            page = small.catalog
            words.append("catalog entry field at offset 28")
        case "commit record offset 104":
            // No longer reserved (the durable base distance): a distance
            // reaching below version 1 is the defect now, reported as a slot
            // finding ("page N: slot: …").
            page = nil
            file.put32(0x7FFF_FFFF, file.slotOffset + 104)
            file.resealSlot()
            words = ["commit slot \(file.currentSlot)", "offset 104"]
        case "slot page after the record":
            page = UInt64(file.currentSlot)
            file.bytes[file.slotOffset + 2000] = 1
            words.append("past its commit record")
        default:
            // The empty tree "e": root page 0 with a birth.
            let index = try #require(file.leafIndex(small.catalog, key: Self.bytes("e")))
            file.put64(3, file.cell(small.catalog, index) + 8 + 1 + 8)
            page = nil
            words.append("must be all zero")
        }
        if field.hasPrefix("catalog") || field.hasPrefix("none") {
            file.resealChain(small.catalog, parents: [])
        } else if !field.contains("slot") && !field.contains("commit record") {
            file.resealChain(small.t, parents: [small.catalog])
        }
        try file.save()
        try Self.expectFinding(small.db, page: page, words)
    }

    // MARK: 7: the space tree

    /// Rewrites the space tree's one leaf with `edit` applied to its cells (then sorted).
    static func editSpace(_ small: SmallDatabase, _ edit: (inout [FileSurgery.LeafCellImage], inout FileSurgery) throws -> Void) throws {
        var file = try FileSurgery(small.db)
        var cells = file.leafCells(small.space)
        try edit(&cells, &file)
        file.writeLeaf(small.space, FileSurgery.sorted(cells))
        file.resealChain(small.space, parents: [])
        try file.save()
    }

    static func historyIndex(_ cells: [FileSurgery.LeafCellImage], _ version: UInt64) throws -> Int {
        try #require(cells.firstIndex { $0.key == FileSurgery.spaceKey("C", version) })
    }

    @Test(arguments: [
        "current logical page count", "current catalog root", "current live bytes", "current free bytes",
        "missing current record", "old catalog root",
    ])
    func aHistoryRecordThatDisagreesWithTheCommitRecordIsAFinding(_ defect: String) throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var words = ["history:"]
        try Self.editSpace(small) { cells, _ in
            let current = try Self.historyIndex(cells, small.version)
            func add(_ delta: UInt64, at field: Int, of index: Int) {
                let value = Self.le64(cells[index].payload, field) &+ delta
                for i in 0..<8 { cells[index].payload[field + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
            }
            switch defect {
            case "current logical page count":
                add(1, at: 56, of: current)
                words += ["history record of version \(small.version): logical page count", "(commit record)"]
            case "current catalog root":
                add(0, at: 64, of: current)
                cells[current].payload[80] ^= 0xFF  // the root's checksum
                words += ["history record of version \(small.version): catalog root"]
            case "current live bytes":
                add(4096, at: 24, of: current)
                words += ["live bytes"]
            case "current free bytes":
                add(4096, at: 32, of: current)
                words += ["free bytes"]
            case "missing current record":
                cells.remove(at: current)
                // History entries are tagged C (FORMAT.md 7), not H as format 1 had them.
                words += ["no history record of the current version", "expected a C (history) entry"]
            default:
                let first = try Self.historyIndex(cells, 2)
                add(1_000_000, at: 64, of: first)
                words += ["history record of version 2: catalog root"]
            }
        }
        try Self.expectFinding(small.db, page: small.space, words)
    }

    @Test func aRecordedPinThatIsNotAnEarlierVersionIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        try Self.editSpace(small) { cells, _ in
            cells.append(.inline(FileSurgery.spaceKey("K", small.version), []))
        }
        try Self.expectFinding(small.db, page: nil, ["space:", "recorded pin is not an earlier version",
                                                     "expected 1..<\(small.version), found \(small.version)"])
    }

    @Test func aRetiredEntryWithBirthZeroIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var page: UInt64 = 0
        try Self.editSpace(small) { cells, _ in
            let index = try #require(cells.firstIndex { $0.key.first == UInt8(ascii: "P") })
            let key = cells[index].key
            page = FileSurgery.bigEndian(key[17..<25])
            cells[index].key = FileSurgery.spaceKey("P", FileSurgery.bigEndian(key[1..<9]), 0, page)
        }
        try Self.expectFinding(small.db, page: page, ["space:", "impossible lifetime", "birth 0"])
    }

    @Test func aFreeOrRetiredEntryWithAValueIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        try Self.editSpace(small) { cells, _ in
            let index = try #require(cells.firstIndex { $0.key.first == UInt8(ascii: "F") || $0.key.first == UInt8(ascii: "P") })
            cells[index] = .inline(cells[index].key, [1])
        }
        try Self.expectFinding(small.db, page: small.space, ["space:", "empty values", "found 1 inline bytes"])
    }

    /// A page the previous slot's version sees, listed as free instead of
    /// retired, with every count adjusted so nothing else disagrees: the
    /// writer would reuse it while that version is still in its slot.
    @Test func aFreePageThePreviousSlotsVersionSeesIsAFinding() throws {
        let dir = try TemporaryDirectory()
        let small = try dir.smallDatabase()
        var page: UInt64 = 0
        try Self.editSpace(small) { cells, file in
            let index = try #require(cells.firstIndex {
                $0.key.first == UInt8(ascii: "P") && FileSurgery.bigEndian($0.key[1..<9]) == small.version
            })
            page = FileSurgery.bigEndian(cells[index].key[17..<25])
            cells[index] = .inline(FileSurgery.spaceKey("F", page), [])
            let current = try Self.historyIndex(cells, small.version)
            let freeBytes = Self.le64(cells[current].payload, 32) + 4096
            for i in 0..<8 { cells[current].payload[32 + i] = UInt8(truncatingIfNeeded: freeBytes >> (8 * UInt64(i))) }
            let record = file.slotOffset
            file.put64(file.u64(record + 88) + 1, record + 88)
            file.put64(file.u64(record + 96) - 1, record + 96)
        }
        try Self.expectFinding(small.db, page: page, ["previousVersion:", "previous slot's version \(small.version - 1)",
                                                      "is free in the current version"])
    }

    // MARK: 7: epoch entries

    /// A file on the commit log with a two-page region whose space tree is
    /// one leaf holding an epoch entry E(end): the last checkpoint retired
    /// the region of the one before (still in the other slot).
    static func smallLog(_ dir: TemporaryDirectory) throws -> (db: String, space: UInt64, end: UInt64) {
        let path = dir.file("log.firn")
        var options = StoreOptions()
        options.commitLogPages = 2
        let store = try Store.open(path, options: options)
        for round in 0..<2 {
            for i in 0..<3 {
                try store.write { txn in _ = try #require(try txn.tree("t")).put(bytes("k\(round)-\(i)"), bytes("v")) }
            }
            _ = try store.checkpoint()
        }
        let end = try #require(try store.readSlots().current).version
        store.close()
        try? FileManager.default.removeItem(atPath: path + ".lock")
        let pages = try FirnRun.run(["dump", path, "--pages", "--json"]).json(PagesJSON.self).pages
        let file = try FileSurgery(path)
        #expect(pages.filter { $0.tree == "(space)" }.map(\.page) == [file.spaceRoot], "the space tree is one leaf")
        #expect(file.leafCells(file.spaceRoot).contains { $0.key == FileSurgery.spaceKey("E", end) })
        try expectClean(path)
        return (path, file.spaceRoot, end)
    }

    @Test(arguments: ["region not retired", "epoch not before end", "later checkpoint", "short value", "region past the pages"])
    func anEpochEntryThatFindsNoRetiredRegionIsAFinding(_ defect: String) throws {
        let dir = try TemporaryDirectory()
        let log = try Self.smallLog(dir)
        var words = ["space:"]
        var file = try FileSurgery(log.db)
        var cells = file.leafCells(log.space)
        let index = try #require(cells.firstIndex { $0.key == FileSurgery.spaceKey("E", log.end) })
        func set(_ value: UInt64, at field: Int) {
            for i in 0..<8 { cells[index].payload[field + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
        }
        switch defect {
        case "region not retired":
            // The region's pages listed free instead (counts left as they
            // were: verify reports those too, and the entry).
            let start = Self.le64(cells[index].payload, 44), epoch = Self.le64(cells[index].payload, 0)
            for page in start..<start + 2 {
                let retired = FileSurgery.spaceKey("P", log.end, epoch, page)
                let at = try #require(cells.firstIndex { $0.key == retired })
                cells[at] = .inline(FileSurgery.spaceKey("F", page), [])
            }
            words += ["epoch entry E(\(log.end)) names a log region whose pages are not retired by checkpoint \(log.end)"]
        case "epoch not before end":
            set(log.end, at: 0)
            words += ["epoch entry E(\(log.end)): invalid epoch"]
        case "later checkpoint":
            cells[index].key = FileSurgery.spaceKey("E", log.end + 5)
            words += ["names a later checkpoint", "found \(log.end + 5)"]
        case "short value":
            cells[index] = .inline(cells[index].key, Array(cells[index].payload.prefix(52)))
            words += ["malformed epoch entry E(\(log.end))", "found 52 inline bytes"]
        default:
            set(Self.le64(cells[index].payload, 16), at: 44)
            words += ["epoch entry E(\(log.end)): invalid region"]
        }
        file.writeLeaf(log.space, FileSurgery.sorted(cells))
        file.resealChain(log.space, parents: [])
        try file.save()
        try Self.expectFinding(log.db, page: log.space, words)
    }
}
