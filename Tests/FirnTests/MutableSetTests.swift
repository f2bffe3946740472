import FirnCore
import FirnTestSupport
import Foundation
import Testing
@testable import Firn

/// `MutableSet` as an app uses it: unique values or objects, live and
/// frozen with its object, observed, emptied with its owner, left by a
/// deleted object, and checked by the built `firn`.
@Suite struct MutableSetTests {
    final class Tag: Object {
        @Persisted(primaryKey: true) var name = ""
        convenience init(_ name: String) {
            self.init()
            self.name = name
        }
    }

    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var labels = MutableSet<String>()
        @Persisted var scores = MutableSet<Double>()
        @Persisted var tags = MutableSet<Tag>()
        @Persisted var maybe = MutableSet<Int?>()
    }

    static func configuration(_ scratch: Scratch) -> Configuration { scratch.configuration([Note.self, Tag.self]) }

    @Test func anUnmanagedSetKeepsOneOfEachAndAddingItsObjectStoresThem() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let note = Note()
        note.id = 1
        try note.labels.insert(contentsOf: ["a", "b", "a"])
        try note.scores.insert(contentsOf: [0.0, -0.0, .nan, .nan, 1])
        let swift = Tag("swift")
        try note.tags.insert(swift)
        try note.tags.insert(swift)
        try note.maybe.insert(contentsOf: [nil, 1, nil])
        #expect(note.labels.count == 2 && note.scores.count == 3 && note.tags.count == 1 && note.maybe.count == 2)
        try db.write { try db.add(note) }
        #expect(Set(note.labels) == ["a", "b"] && note.contains(scores: 0) && note.tags.first?.name == "swift")
        #expect(note.maybe.contains(nil) && note.maybe.contains(1) && !note.maybe.contains(2))
        try db.write {
            try note.labels.insert("a")
            try note.labels.insert("c")
            try note.scores.insert(-0.0)
            try note.tags.insert(swift)          // managed now: the same object
            try note.tags.insert(Tag("db"))  // unmanaged: added with the insert
        }
        #expect(note.labels.count == 3 && note.scores.count == 3 && note.tags.count == 2 && db.objects(Tag.self).count == 2)
    }

    @Test func queriesThroughASet() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        try db.write {
            for id in 1...4 {
                let note = Note()
                note.id = id
                try note.labels.insert(contentsOf: id % 2 == 0 ? ["even", "n\(id)"] : ["n\(id)"])
                try note.tags.insert(Tag("t\(id)"))
                try db.add(note)
            }
        }
        let notes = db.objects(Note.self)
        #expect(try notes.where { $0.labels.contains("even") }.map(\.id) == [2, 4])
        #expect(try notes.where { $0.labels.allSatisfy { $0.beginsWith("n") } }.map(\.id) == [1, 3])
        #expect(try notes.where { $0.tags.name == "t3" }.map(\.id) == [3])
    }

    @Test func setAlgebraRemoveAndRemoveAll() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let note = Note()
        note.id = 1
        try db.write {
            try db.add(note)
            try note.labels.insert(contentsOf: ["a", "b", "c"])
        }
        #expect(!note.labels.isFrozen && note.labels.intersects(["c", "z"]) && !note.labels.intersects(["z"]))
        #expect(note.labels.isSubset(of: ["a", "b", "c", "d"]) && !note.labels.isSubset(of: ["a"]))
        try db.write { try note.labels.formUnion(["c", "d"]) }
        #expect(Set(note.labels) == ["a", "b", "c", "d"])
        try db.write { try note.labels.formIntersection(["b", "d", "e"]) }
        #expect(Set(note.labels) == ["b", "d"])
        try db.write { try note.labels.subtract(["d"]); try note.labels.remove("zz") }
        #expect(Array(note.labels) == ["b"])
        #expect(throws: DatabaseError.self) { try note.labels.insert("x") }   // outside a write
        try db.write { try note.labels.removeAll() }
        #expect(note.labels.isEmpty)
    }

    @Test func frozenObserveDeleteAndTheObjectsItHolds() throws {
        let scratch = Scratch()
        let db = try Database(configuration: Self.configuration(scratch))
        let note = Note()
        note.id = 1
        try note.labels.insert("a")
        try note.tags.insert(contentsOf: [Tag("x"), Tag("y")])
        try db.write { try db.add(note) }
        let frozen = try note.labels.freeze()
        let log = NotificationTests.Log<String>()
        let token = try note.observe { change in
            if case let .change(_, properties) = change { log.append(properties.map(\.name).joined(separator: ",")) }
        }
        try db.write { try note.labels.insert("b") }
        try db.write { try note.labels.insert("b") }    // already there: no change, no notification
        #expect(frozen.isFrozen && Array(frozen) == ["a"] && note.labels.count == 2)
        #expect(try frozen.thaw()?.count == 2)
        // A deleted tag leaves the set, as it leaves lists.
        try db.write { try db.delete(try #require(try db.object(ofType: Tag.self, forPrimaryKey: "x"))) }
        #expect(note.tags.map(\.name) == ["y"])
        #expect(log.entries == ["labels", "tags"])
        token.invalidate()
        try db.write { try db.delete(note) }
        #expect(note.labels.isInvalidated && note.tags.isInvalidated)
        #expect(try MigrationTests.count(scratch, "list.Note.labels") == 0)
    }

    enum AsList {
        final class Note: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var labels = List<String>()
        }
    }

    @Test func aListCannotBecomeASetInAMigration() throws {
        let message = try MapTests.migrationRefusal(from: [AsList.Note.self], to: [Note.self, Tag.self])
        #expect(message.contains("Note.labels") && message.contains("between List and MutableSet"), "\(message)")
    }

    @Test func verifyAndDumpThroughTheBuiltFirn() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: Self.configuration(scratch))
            try db.write {
                let tags = (0..<3).map { Tag("t\($0)") }
                for tag in tags { try db.add(tag) }
                for id in 1...20 {
                    let note = Note()
                    note.id = id
                    try note.labels.insert(contentsOf: (0..<(id % 4)).map { "l\($0)" })
                    try note.tags.insert(tags[id % 3])
                    try db.add(note)
                }
            }
        }
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
        let dump = try FirnCommand.run(["dump", scratch.file, "--objects", "--type", "Note", "--limit", "3"])
        #expect(dump.status == 0 && dump.output.contains("labels: [\"l0\", \"l1\", \"l2\"]"), "\(dump.output)")
        let info = try FirnCommand.run(["info", scratch.file])
        #expect(info.output.contains("labels: MutableSet<String>"), "\(info.output)")
    }
}

extension MutableSetTests.Note {
    func contains(scores value: Double) -> Bool { scores.contains(value) }
}
