// firn-sdk-client: an app's `main.swift` on the SDK, in Swift 6 language
// mode, for the tests that must run the SDK as an app runs it: top-level
// code is main-actor code, and on Linux it runs on another thread after its
// first `await`. `firn-sdk-client SCENARIO DATABASE`; prints what it saw,
// one line per step, and exits 0 (a confinement mistake stops it instead).
import Dispatch
import Firn
import Foundation

final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var attachments = List<Attachment>()
    @Persisted var counts = Map<String, Int>()
    /// The tags naming this note (`Tag.note`): computed, not stored.
    @Persisted(originProperty: "note") var tags: LinkingObjects<Tag>
}

/// Names one note (`Note.tags` is its inverse).
final class Tag: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var note: Note?
}

/// Lives in its note's list (`EmbeddedObject`): added and deleted with it.
final class Attachment: EmbeddedObject {
    @Persisted var name = ""
    @Persisted var size = 0
}

/// A new unmanaged note.
func note(_ id: Int, _ text: String) -> Note {
    let note = Note()
    note.id = id
    note.text = text
    return note
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: firn-sdk-client SCENARIO DATABASE\n".utf8))
    exit(64)
}
let scenario = arguments[1]
let configuration = Configuration(path: arguments[2], objectTypes: [Note.self, Attachment.self, Tag.self])

/// A value shared with callbacks that may run on other threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Something the main actor keeps (as a screen's model would).
@MainActor final class Screen {
    var lines: [String] = []
    func show(_ line: String) {
        lines.append(line)
        print(line)
    }
}

/// Commits `change` on a thread of its own, in its own instance (another
/// part of the app writing); a failure is printed.
func writeOnAnotherThread(_ change: @escaping @Sendable (Database) throws -> Void) {
    Thread.detachNewThread {
        do {
            let other = try Database(configuration: configuration)
            try other.write { try change(other) }
        } catch {
            print("other thread: \(error)")
        }
    }
}

switch scenario {
case "main-actor":
    // Opened at top level: bound to the main actor, not to the thread that
    // ran this line (which is gone after the first `await` on Linux).
    let db = try Database(configuration: configuration)
    let screen = Screen()
    try db.write {
        let note = Note()
        note.id = 1
        note.text = "first"
        try db.add(note)
    }
    try await Task.sleep(for: .milliseconds(20))
    screen.show("after await: \(db.objects(Note.self).count) notes")
    // `Database.open` on the main actor is the same instance.
    let opened = try await Database.open(configuration: configuration)
    try await opened.asyncWrite {
        let note = Note()
        note.id = 2
        note.text = "second"
        try opened.add(note)
    }
    screen.show("after asyncWrite: \(db.objects(Note.self).count) notes, same instance \(opened.objects(Note.self).count == 2)")
    // A results observer: its callbacks run on the main actor, where the
    // instance is bound; they hand what they read to the screen.
    let heard = AsyncStream<Int>.makeStream()
    let token = try db.objects(Note.self).observe { change in
        switch change {
        case let .initial(notes), let .update(notes, _, _, _): heard.continuation.yield(notes.count)
        case .error: heard.continuation.yield(-1)
        }
    }
    var counts = heard.stream.makeAsyncIterator()
    screen.show("initial: \(await counts.next() ?? -2) notes")
    // A commit on another thread is heard here, after an `await`.
    writeOnAnotherThread { other in
        let note = Note()
        note.id = 3
        try other.add(note)
    }
    screen.show("update: \(await counts.next() ?? -2) notes")
    // writeAsync: the block and its completion run on the main actor.
    let completed = AsyncStream<String>.makeStream()
    db.writeAsync {
        try db.object(ofType: Note.self, forPrimaryKey: 1)?.text = "edited"
    } onComplete: { error in
        completed.continuation.yield(error.map { "\($0)" } ?? "durable")
    }
    var completions = completed.stream.makeAsyncIterator()
    screen.show("writeAsync: \(await completions.next() ?? "none"), text \(try db.object(ofType: Note.self, forPrimaryKey: 1)?.text ?? "?")")
    token.invalidate()
    screen.show("binding: \(db.objects(Note.self).isFrozen ? "frozen" : "live")")

case "changes":
    // The Swift-concurrency way to observe: `for await` over a query's
    // changes at top level (the main actor). Another thread commits one step
    // each time the loop has taken an element; each changeset, applied to
    // the rows shown, must give the rows of the results it carries.
    let db = try Database(configuration: configuration)
    let notes = try db.objects(Note.self).sorted(by: \.text)
    let turn = DispatchSemaphore(value: 0)
    let steps: [@Sendable (Database) throws -> Void] = [
        { db in for (id, text) in [(1, "b"), (2, "d")] { try db.add(note(id, text)) } },
        { db in
            try db.add(note(3, "a"))
            try db.object(ofType: Note.self, forPrimaryKey: 2)?.text = "c"
        },
        { db in try db.object(ofType: Note.self, forPrimaryKey: 1).map { try db.delete($0) } },
        { db in try db.object(ofType: Note.self, forPrimaryKey: 3)?.text = "e" },
    ]
    var rows: [Int] = []
    var updates = 0
    for await change in notes.changes {
        switch change {
        case let .initial(results):
            rows = results.map(\.id)
            print("initial: \(rows)")
            Thread.detachNewThread {
                do {
                    let other = try Database(configuration: configuration)
                    for step in steps {
                        turn.wait()
                        try other.write { try step(other) }
                    }
                } catch {
                    print("other thread: \(error)")
                }
            }
        case let .update(results, deletions, insertions, modifications):
            let now = results.map(\.id)
            var mirror = rows
            for index in deletions.sorted(by: >) { mirror.remove(at: index) }
            for index in insertions.sorted() { mirror.insert(now[index], at: index) }
            print("update: -\(deletions) +\(insertions) ~\(modifications) → \(now), mirror \(mirror == now ? "agrees" : "is \(mirror)")")
            rows = now
            updates += 1
        case let .error(error):
            print("error: \(error)")
        }
        if updates == steps.count { break }
        turn.signal()
    }
    print("after the loop: \(db.objects(Note.self).count) notes")

case "main-thread-sync":
    // A synchronous tool: its main thread never runs the main queue (no
    // `await`, no `dispatchMain()`). The instance is the main actor's all
    // the same; what would run as main-queue blocks runs at its refresh
    // points and waits instead.
    let db = try Database(configuration: configuration)
    let heard = Locked<[String]>([])
    let token = try db.objects(Note.self).observe { change in
        switch change {
        case let .initial(notes): heard.withLock { $0.append("initial \(notes.count)") }
        case let .update(notes, _, insertions, _): heard.withLock { $0.append("update \(notes.count) +\(insertions)") }
        case let .error(error): heard.withLock { $0.append("error \(error)") }
        }
    }
    for id in 1...2 {
        let other = Thread {
            guard let db = try? Database(configuration: configuration) else { return }
            try? db.write {
                let note = Note()
                note.id = id
                try db.add(note)
            }
        }
        other.start()
        while !other.isFinished { usleep(1_000) }
        _ = try db.refresh()
    }
    let completed = Locked<String?>(nil)
    db.writeAsync {
        try db.object(ofType: Note.self, forPrimaryKey: 1)?.text = "edited"
    } onComplete: { error in
        completed.withLock { $0 = error.map { "\($0)" } ?? "durable" }
    }
    db.waitForAsyncWrites()
    for line in heard.withLock({ $0 }) { print(line) }
    print("writeAsync: \(completed.withLock { $0 } ?? "none")")
    token.invalidate()

case "off-main-actor":
    // The same instance used from a detached task: stops the program,
    // naming the main actor as the binding.
    let db = try Database(configuration: configuration)
    await Task.detached { _ = db.objects(Note.self).count }.value
    print("not stopped")

case "embedded":
    // A note's attachments: a change inside one, committed on another
    // thread, is heard by `for await` over the note's changes; deleting
    // the note deletes them.
    let db = try Database(configuration: configuration)
    let first = note(1, "with a file")
    let file = Attachment()
    file.name = "a.png"
    try first.attachments.append(file)
    try db.write { try db.add(first) }
    var changes = first.changes.makeAsyncIterator()
    writeOnAnotherThread { other in try other.object(ofType: Note.self, forPrimaryKey: 1)?.attachments.first?.size = 42 }
    if case let .change(object, properties) = await changes.next() {
        print("changed: \(properties.map(\.name)), size \((object as? Note)?.attachments.first?.size ?? -1)")
    }
    try db.write { try db.delete(first) }
    print("attachment deleted with its note: \(file.isInvalidated)")

case "embedded-objects":
    // An embedded type is not a type of its own to query: stops the program.
    let db = try Database(configuration: configuration)
    _ = db.objects(Attachment.self).count
    print("not stopped")

case "map":
    // A note's counts (`Map`): a key added on another thread is heard by
    // `for await` over the note's changes, naming the map.
    let db = try Database(configuration: configuration)
    let first = note(1, "counted")
    first.counts["a"] = 1
    try db.write { try db.add(first) }
    var changes = first.changes.makeAsyncIterator()
    writeOnAnotherThread { other in try other.object(ofType: Note.self, forPrimaryKey: 1)?.counts["b"] = 2 }
    if case let .change(object, properties) = await changes.next(), let counts = (object as? Note)?.counts {
        print("changed: \(properties.map(\.name)), counts [\(counts.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", "))]")
    }

case "linking":
    // A query through the inverse relationship (`$0.tags.name`), and a
    // results observer (`for await` over `changes`) that hears a change
    // inside a note's attachment, made on another thread, as a
    // modification of that note.
    let db = try Database(configuration: configuration)
    let tagged = note(1, "tagged"), plain = note(2, "plain")
    let file = Attachment()
    file.name = "a.png"
    try tagged.attachments.append(file)
    try db.write {
        try db.add(tagged)
        try db.add(plain)
        let tag = Tag()
        tag.name = "urgent"
        tag.note = tagged
        try db.add(tag)
    }
    print("tagged urgent: \(try db.objects(Note.self).where { $0.tags.name == "urgent" }.map(\.id))")
    print("untagged: \(try db.objects(Note.self).where { $0.tags.isEmpty }.map(\.id))")
    var changes = db.objects(Note.self).changes.makeAsyncIterator()
    if case let .initial(results)? = await changes.next() { print("initial: \(results.count) notes") }
    writeOnAnotherThread { other in try other.object(ofType: Note.self, forPrimaryKey: 1)?.attachments.first?.size = 7 }
    if case let .update(_, deletions, insertions, modifications)? = await changes.next() {
        print("update: -\(deletions) +\(insertions) ~\(modifications)")
    }

default:
    FileHandle.standardError.write(Data("firn-sdk-client: unknown scenario \(scenario)\n".utf8))
    exit(64)
}
