import Foundation
import Testing

/// An instance opened on the main actor is bound to the main actor (Realm's
/// rule), not to the thread that opened it: on Linux top-level code runs on
/// another thread after its first `await`, and an instance bound to the
/// opening thread stopped the program there with "incorrect thread". Run
/// as an app runs: `firn-sdk-client`, a `main.swift` in Swift 6 mode.
@Suite struct MainActorBindingTests {
    @Test func anInstanceOpenedAtTopLevelIsUsableAfterAwaitsOnTheMainActor() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("main-actor", database: scratch.file)
        #expect(!outcome.crashed && outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == [
            "after await: 1 notes",
            "after asyncWrite: 2 notes, same instance true",
            "initial: 2 notes",
            "update: 3 notes",
            "writeAsync: durable, text edited",
            "binding: live",
        ], "\(outcome.stdout)\(outcome.stderr)")
    }

    /// A synchronous tool's main thread never runs the main queue: its
    /// main-actor instance begins observers and runs async writes at its
    /// refresh points and waits (the observer's `.initial` comes at the
    /// first refresh, as Realm's does on a thread without a run loop).
    @Test func aSynchronousToolOnTheMainThreadHearsAtItsRefreshPoints() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("main-thread-sync", database: scratch.file)
        #expect(!outcome.crashed && outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == [
            "initial 1",
            "update 2 +[1]",
            "update 2 +[]",
            "writeAsync: durable",
        ], "\(outcome.stdout)\(outcome.stderr)")
    }

    /// Used off the main actor (a detached task), the instance still stops
    /// the program, naming the main actor as its binding.
    @Test func aMainActorInstanceUsedFromADetachedTaskStopsTheProgram() throws {
        let scratch = Scratch()
        let outcome = try SDKClient.run("off-main-actor", database: scratch.file)
        #expect(outcome.crashed, "status \(outcome.status): \(outcome.stdout)")
        #expect(outcome.stderr.contains("Database accessed from incorrect thread: bound to the main actor, used from thread"),
                "\(outcome.stderr)")
        #expect(!outcome.stdout.contains("not stopped"))
    }
}
