import Foundation

/// One snippet of the documents: the name of its marked region and a body
/// that runs it in a fresh directory (its argument) and throws when the
/// snippet did not do what the documents say.
struct Snippet: Sendable {
    let name: String
    let run: @Sendable (_ directory: String) async throws -> Void

    init(name: String, run: @escaping @Sendable (_ directory: String) async throws -> Void) {
        self.name = name
        self.run = run
    }

    /// A snippet of synchronous code, run on a thread of its own: a
    /// thread-bound Database it makes belongs to that thread alone (no
    /// instance is shared with another snippet), and the main actor stays
    /// free for the snippets that hand results to it.
    static func onThread(name: String, _ body: @escaping @Sendable (_ directory: String) throws -> Void) -> Snippet {
        Snippet(name: name) { directory in try await onNewThread { try body(directory) } }
    }
}

/// Where the snippets' files go: a directory per run of the program and a
/// subdirectory per snippet, so that each snippet starts without a database.
enum ScratchDirectory {
    static let root = FileManager.default.temporaryDirectory.appendingPathComponent("firn-doc-snippets-\(getpid())").path

    static func of(_ snippet: String) -> String { root + "/" + snippet }
}

/// Runs `body` on a new thread and resumes with its outcome.
func onNewThread(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
        Thread {
            do {
                try body()
                done.resume()
            } catch {
                done.resume(throwing: error)
            }
        }.start()
    }
}

/// Waits until `condition` holds or `seconds` pass; returns whether it
/// holds. The deadline only bounds how long a failing snippet waits.
func waitFor(upTo seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}
