import Foundation
import Testing
import FirnCore
import FirnTools
import FirnTestSupport

/// Nothing laundered (issue "Nothing laundered, nothing stale" §1): one
/// flipped byte in any page of a version — an object leaf or branch, an
/// overflow page, the `sys.schema` leaf, a `list.*` leaf, the catalog — makes
/// every command that reads or copies that page fail with 65 naming the
/// file, the page, the tree and the version. `compact -o` and `export` leave
/// no output behind, an in-place `compact` leaves the file byte for byte as
/// it was, and the writers (`checkpoint` replaying frames into the damaged
/// page, `load` building on it) refuse instead of carrying the damage into
/// a new version that verifies clean.
@Suite struct LaunderingTests {
    enum Target: String, CaseIterable {
        case objectLeaf, objectBranch, overflow, schemaLeaf, listLeaf, catalog
    }

    static let petSchema: [PropertySchema] = [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "tags", type: .string, isList: true),
    ]
    static let pets = 400

    static func petKey(_ id: Int64) -> [UInt8] { ObjectKey.encode(.int(id), as: .int) ?? [] }

    static func record(_ id: Int64, _ name: String) -> [UInt8] {
        ObjectRecord.encode([(tag: 0, type: .int, value: .int(id)), (tag: 1, type: .string, value: .string(name))])
    }

    /// A packed file (one checkpoint, every page born in its version) of
    /// pets with names, tags and one name long enough for an overflow chain.
    static func packedFile(_ dir: TemporaryDirectory) throws -> String {
        let source = dir.file("source.firn")
        let store = try Store.open(source, options: .pageCommits)
        try store.write { txn in
            _ = try txn.tree(ObjectSchema.schemaTreeName)?.put(
                Array("Pet".utf8), try ObjectSchema(name: "Pet", properties: petSchema).encode())
            guard let objects = try txn.tree("obj.Pet"), let tags = try txn.tree("list.Pet.tags") else { return }
            for id in 1...Int64(pets) {
                let name = id == 7 ? String(repeating: "long name ", count: 900) : "pet \(id)"
                _ = try objects.put(petKey(id), record(id, name))
                for position in 0..<3 {
                    _ = try tags.put(ListKey.key(petKey(id), position),
                                     ListElement.encode(.string("tag \(position) of pet \(id)"), as: .string) ?? [])
                }
            }
        }
        store.close()
        let packed = dir.file("packed.firn")
        let run = try FirnRun.run(["compact", source, "-o", packed])
        #expect(run.status == 0, "\(run.stderr)")
        return packed
    }

    /// The page of `target` in `db`, and the tree `firn` names for it.
    static func page(of target: Target, in db: String) throws -> (page: UInt64, tree: String) {
        let pages = try FirnRun.run(["dump", db, "--pages", "--json"]).json(PagesJSON.self).pages
        func first(_ match: (PagesJSON.Page) -> Bool) throws -> PagesJSON.Page {
            let found = pages.first(where: match)
            return try #require(found)
        }
        let found: PagesJSON.Page
        switch target {
        case .objectLeaf: found = try first { $0.tree == "obj.Pet" && $0.type == "leaf" }
        case .objectBranch: found = try first { $0.tree == "obj.Pet" && $0.type == "branch" }
        case .overflow: found = try first { $0.type == "overflow" }
        case .schemaLeaf: found = try first { $0.tree == ObjectSchema.schemaTreeName }
        case .listLeaf: found = try first { $0.tree == "list.Pet.tags" && $0.type == "leaf" }
        case .catalog: found = try first { $0.tree == "(catalog)" }
        }
        return (found.page, found.tree)
    }

    static func flipByte(_ db: String, page: UInt64) throws {
        var file = try FileSurgery(db)
        // Past the header, where cells, payload or free space lie: every
        // byte of the page is covered by its checksum.
        file.flipBit(page: page, at: file.pageSize / 2, bit: 5)
        try file.save()
    }

    static func expectRefused(_ run: FirnRun, _ db: String, page: UInt64, tree: String, _ context: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 65, "\(context) exited \(run.status): \(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.isCleanFailure, "\(context): \(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains(db) && run.stderr.contains("page \(page)") && run.stderr.contains("version"),
                "\(context) names file, page and version: \(run.stderr)", sourceLocation: sourceLocation)
        if tree != "(catalog)" {
            #expect(run.stderr.contains("\"\(tree)\""), "\(context) names tree \(tree): \(run.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Target.allCases)
    func noCommandCopiesOrShowsADamagedPage(_ target: Target) throws {
        let dir = try TemporaryDirectory()
        let db = try Self.packedFile(dir)
        let (page, tree) = try Self.page(of: target, in: db)
        try Self.flipByte(db, page: page)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: db))

        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 65 && (verify.stdout + verify.stderr).contains("page \(page)"), "\(verify.stdout)\(verify.stderr)")

        let out = dir.file("out.firn")
        Self.expectRefused(try FirnRun.run(["compact", db, "-o", out]), db, page: page, tree: tree, "compact -o")
        #expect(!FileManager.default.fileExists(atPath: out), "compact -o left its output")

        let snapshot = dir.file("snap.firn.lz4")
        Self.expectRefused(try FirnRun.run(["export", db, "-o", snapshot]), db, page: page, tree: tree, "export")
        #expect(!FileManager.default.fileExists(atPath: snapshot), "export left its output")

        Self.expectRefused(try FirnRun.run(["compact", db]), db, page: page, tree: tree, "compact in place")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == damaged, "in-place compact changed the file")

        Self.expectRefused(try FirnRun.run(["dump", db, "--entries"]), db, page: page, tree: tree, "dump --entries")
        let objects = try FirnRun.run(["dump", db, "--objects"])
        #expect(objects.status == 65 && objects.isCleanFailure, "dump --objects: \(objects.status) \(objects.stderr)")
        // Only what is left of the directory: no temporary or partial file.
        #expect(Set(dir.entries()).isSubset(of: ["source.firn", "source.firn.lock", "packed.firn", "packed.firn.lock"]),
                "\(dir.entries())")
    }

    /// A checkpoint that would replay frames into a damaged leaf refuses,
    /// and leaves the file as it was.
    @Test func aCheckpointRefusesToBuildOnADamagedLeaf() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.packedFile(dir)
        // The packed file has no log region: its first commit is a
        // checkpoint that makes one; the second is a frame, renaming a pet
        // whose record is in a leaf of that checkpoint.
        let setUp = try FirnRun.run(["load", db], stdin: Data("\"other\"\t\"k\"\t\"v\"\n".utf8))
        #expect(setUp.status == 0, "\(setUp.stderr)")
        let (page, _) = try Self.page(of: .objectLeaf, in: db)
        let (key, id) = try Self.firstKey(of: page, in: db)
        let load = try FirnRun.run(["load", db], stdin: Data("\"obj.Pet\"\tx\(key)\tx\(Self.hex(Self.record(id, "renamed")))\n".utf8))
        #expect(load.status == 0, "\(load.stderr)")
        try Self.flipByte(db, page: page)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: db))
        let checkpoint = try FirnRun.run(["checkpoint", db])
        Self.expectRefused(checkpoint, db, page: page, tree: "obj.Pet", "checkpoint")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == damaged, "a refused checkpoint changed the file")
    }

    /// A load whose key lands in a damaged leaf refuses before writing.
    @Test func aLoadRefusesToBuildOnADamagedLeaf() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.packedFile(dir)
        for (tree, value) in [("other", "x00"), ("obj.Pet", nil)] {
            // The first commit checkpoints (no region yet); the second would be a frame.
            let (page, _) = try Self.page(of: .objectLeaf, in: db)
            let (key, id) = try Self.firstKey(of: page, in: db)
            if let value {
                let setUp = try FirnRun.run(["load", db], stdin: Data("\"\(tree)\"\tx\(key)\t\(value)\n".utf8))
                #expect(setUp.status == 0, "\(setUp.stderr)")
                continue
            }
            try Self.flipByte(db, page: page)
            let damaged = try Data(contentsOf: URL(fileURLWithPath: db))
            let load = try FirnRun.run(["load", db], stdin: Data("\"obj.Pet\"\tx\(key)\tx\(Self.hex(Self.record(id, "again")))\n".utf8))
            Self.expectRefused(load, db, page: page, tree: "obj.Pet", "load")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == damaged, "a refused load changed the file")
        }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The first key of object leaf `page` in hex, and the pet id it encodes
    /// (an `Int` object key: big-endian with the sign bit flipped).
    static func firstKey(of page: UInt64, in db: String) throws -> (hex: String, id: Int64) {
        let file = try FileSurgery(db)
        let cell = file.cell(page, 0)
        let length = Int(file.u16(cell))
        let keyStart = cell + 8
        let key = Array(file.bytes[keyStart..<keyStart + length])
        try #require(key.count == 8 && key == petKey(Int64(bitPattern: key.reduce(0) { $0 << 8 | UInt64($1) } ^ (1 << 63))))
        let id = Int64(bitPattern: key.reduce(0) { $0 << 8 | UInt64($1) } ^ (1 << 63))
        return (hex(key), id)
    }
}

/// A writer owns the whole slot page it writes a record into (FORMAT.md 2:
/// the page is zero after its record): a stray byte past the record area of
/// an empty slot does not outlive the commit that fills the slot.
@Suite struct SlotPageOwnershipTests {
    @Test func aCommitIntoAnEmptySlotZeroesTheRestOfItsPage() throws {
        let dir = try TemporaryDirectory()
        let db = try LaunderingTests.packedFile(dir)
        var file = try FileSurgery(db)
        let empty = 1 - file.currentSlot
        #expect(file.bytes[(empty * file.pageSize)..<((empty + 1) * file.pageSize)].allSatisfy { $0 == 0 }, "a packed file has one slot")
        file.bytes[empty * file.pageSize + file.pageSize / 2] = 0x5A
        try file.save()
        let before = try FirnRun.run(["verify", db])
        #expect(before.status == 0, "an empty slot holds no record to check: \(before.stdout)\(before.stderr)")
        // The first commit on a packed file is a checkpoint: a record in the empty slot.
        let load = try FirnRun.run(["load", db], stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        #expect(load.status == 0, "\(load.stderr)")
        let after = try FileSurgery(db)
        #expect(after.currentSlot == empty, "the commit wrote the slot that was empty")
        #expect(after.bytes[empty * after.pageSize + after.pageSize / 2] == 0, "the stray byte outlived the commit")
        let verify = try FirnRun.run(["verify", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}

/// A damaged leaf of the space tree that holds no history (free and
/// retired entries only): a packed image carries just the history, yet
/// `compact -o` and `export` refuse the version rather than copy the rest
/// into a file that verifies clean (found by a mutation-fuzzing run).
@Suite struct SpaceTreeLaunderingTests {
    @Test func aDamagedFreeListLeafFailsCompactAndExport() throws {
        let dir = try TemporaryDirectory()
        let demo = try FirnRun.run(["demo", dir.path, "--no-progress"], timeout: 120)
        try #require(demo.status == 0, "\(demo.stderr)")
        let db = dir.file("demo.firn")
        // The oldest space leaf holding only free (F) and retired (P)
        // entries: its first key is one, and it was born before the newest
        // checkpoint (damage to a page that checkpoint wrote reads as a
        // power loss during its sync: FORMAT.md 2.1 falls back a version).
        let text = try FirnRun.run(["dump", db, "--pages"]).stdout
        let rows = text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        let candidates = rows.filter { $0.count > 7 && $0[1] == "(space)" && $0[2] == "leaf" && ($0[7].hasPrefix("x46") || $0[7].hasPrefix("x50")) }
        let oldest = try #require(candidates.min { (UInt64($0[6]) ?? .max) < (UInt64($1[6]) ?? .max) }, "a space leaf of free or retired entries: \(text)")
        let leaf = (page: try #require(UInt64(oldest[0])), birth: UInt64(oldest[6]) ?? 0)
        var file = try FileSurgery(db)
        file.flipBit(page: leaf.page, at: file.pageSize - 1, bit: 2)
        try file.save()
        for (command, output) in [("compact", dir.file("out.firn")), ("export", dir.file("out.firn.lz4"))] {
            let run = try FirnRun.run([command, db, "-o", output])
            #expect(run.status == 65 && run.isCleanFailure, "\(command): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("page \(leaf.page)"), "\(command): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(command) left its output")
        }
    }
}
