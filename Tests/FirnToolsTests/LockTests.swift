import Foundation
import Testing
import FirnTools

/// Lock timeouts: never wait forever.
@Suite struct LockTests {
    @Test func loadTimesOutWith75WhileAnotherProcessHoldsTheWriterLock() throws {
        let dir = try Scratch()
        let db = try dir.sampleDatabase()
        let writer = try Background(FirnRun.testkit, ["lock-writer", db, "30"])
        #expect(writer.firstLine() == "ready")
        let started = Date()
        let run = try FirnRun.run(["load", db, "--lock-timeout", "0.5"], stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 75 && run.isCleanFailure, "\(run.stderr)")
        #expect(run.stderr.contains("pid \(writer.pid)"))
        #expect(elapsed < 10)
        // Read-only commands do not wait for the writer.
        #expect(try FirnRun.run(["info", db], timeout: 10).status == 0)
        #expect(try FirnRun.run(["verify", db], timeout: 10).status == 0)
    }
}
