import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// Lock timeouts: never wait forever.
@Suite struct LockTests {
    @Test func loadTimesOutWith75WhileAnotherProcessHoldsTheWriterLock() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let writer = try ChildProcess.testkit(["lock-writer", db, "120"])
        #expect(writer.readLine() == "ready")
        let started = Date()
        let run = try FirnRun.run(["load", db, "--lock-timeout", "0.5"], stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 75 && run.isCleanFailure, "\(run.stderr)")
        #expect(run.stderr.contains("pid \(writer.pid)"))
        // Not the 0.5 s: `firn` itself may take seconds to start and finish
        // on a loaded machine. A load that waited for the writer (120 s) fails.
        #expect(elapsed < 30)
        // Read-only commands do not wait for the writer (it holds on past
        // their timeouts, which allow for a loaded machine).
        #expect(try FirnRun.run(["info", db], timeout: 40).status == 0)
        #expect(try FirnRun.run(["verify", db], timeout: 40).status == 0)
    }
}
