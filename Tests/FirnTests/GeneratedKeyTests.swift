import Firn
import FirnCore
import Foundation
import Testing

/// A note without a primary key (generated keys) and a holder linking to one.
final class Note: Object {
    @Persisted var text = ""
}

final class NoteHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note: Note?
}

/// Generated keys are never given twice (docs/FORMAT.md §12.3, §12.6): the
/// high-water mark in `sys.meta` outlives the object holding the largest key.
@Suite struct GeneratedKeyTests {
    static func note(_ text: String) -> Note {
        let note = Note()
        note.text = text
        return note
    }

    @Test func aDeletedObjectsKeyIsNotGivenToTheNextObject() throws {
        let scratch = Scratch()
        let config = scratch.configuration([Note.self, NoteHolder.self])
        do {
            let db = try Database(configuration: config)
            let holder = NoteHolder()
            try db.write {
                for text in ["a", "b", "c"] { try db.add(Self.note(text)) }
                holder.note = db.objects(Note.self).first { $0.text == "c" }
                try db.add(holder)
            }
            let last = try #require(db.objects(Note.self).first { $0.text == "c" })
            let reference = try ThreadSafeReference(to: last)
            try db.write { try db.delete(last) }
            #expect(holder.note == nil)
            try db.write { try db.add(Self.note("d")) }
            // The link to the deleted note stays nil; the reference finds nothing.
            #expect(holder.note == nil)
            #expect(try db.resolve(reference) == nil)
            #expect(db.objects(Note.self).map(\.text) == ["a", "b", "d"])
        }
        #expect(try StoredKeys.keys(scratch.file) == [1, 2, 4])
        #expect(try StoredKeys.nextKeyMark(scratch.file, "Note") == 5)
        #expect(try StoredKeys.nextKeyMark(scratch.file, "NoteHolder") == nil)
    }

    @Test func keysAreNotReusedAfterReopening() throws {
        let scratch = Scratch()
        let config = scratch.configuration([Note.self, NoteHolder.self])
        do {
            let db = try Database(configuration: config)
            try db.write { for text in ["a", "b"] { try db.add(Self.note(text)) } }
            try db.write { for note in db.objects(Note.self) { try db.delete(note) } }
        }
        #expect(try StoredKeys.keys(scratch.file).isEmpty)
        do {
            let db = try Database(configuration: config)
            try db.write { try db.add(Self.note("c")) }
            // One mark per write, at commit: several adds in one write.
            try db.write { for text in ["d", "e"] { try db.add(Self.note(text)) } }
            let last = try #require(db.objects(Note.self).first { $0.text == "e" })
            try db.write { try db.delete(last) }
        }
        #expect(try StoredKeys.keys(scratch.file) == [3, 4])
        #expect(try StoredKeys.nextKeyMark(scratch.file, "Note") == 6)
        do {
            let db = try Database(configuration: config)
            try db.write { try db.add(Self.note("f")) }
            #expect(db.objects(Note.self).map(\.text) == ["c", "d", "f"])
        }
        #expect(try StoredKeys.keys(scratch.file) == [3, 4, 6])
    }

    @Test func aCancelledWriteRecordsNoMark() throws {
        let scratch = Scratch()
        let config = scratch.configuration([Note.self, NoteHolder.self])
        do {
            let db = try Database(configuration: config)
            try db.beginWrite()
            try db.add(Self.note("a"))
            db.cancelWrite()
            try db.write { try db.add(Self.note("b")) }
        }
        #expect(try StoredKeys.keys(scratch.file) == [1])
        #expect(try StoredKeys.nextKeyMark(scratch.file, "Note") == 2)
    }
}
