// The README's "Using the engine" example, compiled as the top-level code it
// is there: its top-level `try await store.beginWrite()` must resolve to the
// async beginWrite (see Store.beginWriteBlocking for why it once did not).
// doc-snippets runs this program in a fresh directory, so "app.firn" is a new
// database; a failed check below (a precondition) stops it with its message.

// snippet: readme-engine
import FirnCore

let store = try Store.open("app.firn")            // creates it if missing

// One writer at a time, across threads and processes (first come, first
// served inside a process); commit is durable when it returns (durability
// .full). A transaction is not tied to a thread: begin it on one, send it to
// another to commit. From async code, `await` it: the task suspends instead of
// blocking a thread, and a task cancelled before it got the lock throws
// CancellationError without ever holding it. (Synchronous code that must hold
// a transaction beyond a closure calls `beginWriteBlocking()`.)
try store.write { txn in
    guard let users = try txn.tree("users") else { return }  // created on first use
    try users.put(Array("alice".utf8), Array("admin".utf8))
    try users.delete(Array("bob".utf8))
}
let txn = try await store.beginWrite()
try txn.tree("users")?.put(Array("carol".utf8), Array("viewer".utf8))
try txn.commit()

// Snapshots are pinned, lock-free and thread-safe.
let snapshot = try store.snapshot(kind: .frozen, label: "report")
if let users = try snapshot.tree("users") {
    let value = try users.get(Array("alice".utf8))  // bytes point into the map
    let cursor = users.cursor()
    try cursor.seek(Array("a".utf8))
    while cursor.isValid { /* cursor.key, cursor.value */ try cursor.next() }
}
snapshot.close()                                   // or let it go out of scope

// A live view moves its pin forward without giving up its reader slot, and
// every holder of a version in a process can share one pin (the last share
// releases it); its frozen-object count is what `firn pins` shows.
var live = try store.snapshot(label: "main thread")
live = try store.refresh(live)
let frozen = try store.sharedSnapshot(kind: .frozen, label: "dashboard")
frozen.addFrozenObjects(120)
// snippet end

// What the README says the example did.
let latest = try store.snapshot()
var entries: [String: String] = [:]
if let users = try latest.tree("users") {
    let cursor = users.cursor()
    try cursor.seek([])
    while cursor.isValid, let key = try cursor.key, let value = try cursor.value {
        entries[String(decoding: key, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
        try cursor.next()
    }
}
precondition(entries == ["alice": "admin", "carol": "viewer"], "the users after both writes: \(entries)")
precondition(live.version == latest.version, "the refreshed live view reads version \(live.version), not the latest \(latest.version)")
precondition(frozen.version == latest.version, "the shared frozen snapshot pins version \(frozen.version), not \(latest.version)")
