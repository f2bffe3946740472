import Foundation
import Testing

/// Closures the SDK runs later on the instance's queue, actor or thread —
/// observe callbacks, async write blocks and completions — are `@Sendable`:
/// one written in main-actor code that touches main-actor state is a
/// compile-time error in Swift 6, not a `_dispatch_assert_queue_fail` trap
/// when a queue-bound instance calls it. Checked with the compiler, on an
/// app's source importing the `Firn` module built with these tests.
@Suite struct SendableCallbackTests {
    /// An app's screen on the main actor, handing each kind of callback a
    /// closure that writes its main-actor state: every one must be refused.
    static let mainActorApp = """
        import Firn

        final class Dog: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var age = 0
        }

        @MainActor final class Screen {
            var title = ""
            var tokens: [NotificationToken] = []

            func start(_ db: Database, _ rex: Dog) throws {
                tokens.append(try db.objects(Dog.self).observe { _ in
                    self.title = "results"
                })
                tokens.append(try rex.observe { _ in
                    self.title = "object"
                })
                tokens.append(try db.observe { _, _ in
                    self.title = "database"
                })
                db.writeAsync {
                    self.title = "block"
                } onComplete: { _ in
                    self.title = "completion"
                }
                db.beginAsyncWrite {
                    self.title = "begin"
                    db.commitAsyncWrite { _ in
                        self.title = "commit"
                    }
                }
            }
        }
        """

    @Test func mainActorStateInACallbackIsACompileTimeError() throws {
        let scratch = Scratch()
        let errors = try SwiftTypeCheck.errors(in: Self.mainActorApp, scratch: scratch)
        // Every line that writes `title` (seven closures), and nothing else.
        let writes = Self.mainActorApp.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains("self.title =") }.map { $0.offset + 1 }
        #expect(writes.count == 7)
        #expect(errors.map(\.line) == writes, "\(errors)")
        for error in errors {
            #expect(error.message.contains("main actor-isolated"), "\(error)")
        }
    }

    /// The patterns docs/SDK.md shows compile as they are: state reached
    /// through the database inside the block, results handed back to the
    /// main actor in a `Task`, a Sendable box for what the callback keeps.
    static let workingApp = """
        import Dispatch
        import Firn

        final class Dog: Object {
            @Persisted(primaryKey: true) var id = 0
            @Persisted var age = 0
        }

        @MainActor final class Screen {
            var count = 0
            var token: NotificationToken?

            func start(_ config: Configuration, queue: DispatchQueue) {
                queue.async {
                    guard let db = try? Database(configuration: config, queue: queue) else { return }
                    db.writeAsync {
                        try db.object(ofType: Dog.self, forPrimaryKey: 7)?.age += 1
                    } onComplete: { error in
                        Task { @MainActor in self.count = error == nil ? 1 : 0 }
                    }
                    let token = try? db.objects(Dog.self).observe { change in
                        if case let .update(dogs, _, _, _) = change {
                            let count = dogs.count
                            Task { @MainActor in self.count = count }
                        }
                    }
                    Task { @MainActor in self.token = token }
                }
            }
        }
        """

    @Test func theDocumentedPatternsCompile() throws {
        let scratch = Scratch()
        let errors = try SwiftTypeCheck.errors(in: Self.workingApp, scratch: scratch)
        #expect(errors.isEmpty, "\(errors)")
    }
}
