import FirnTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A pin left by a process that exited (frozen values alive at a crash or
/// a kill) is reported as stale, counts for no alert unless asked
/// (`--include-stale`), and is reclaimed by the next writer.
@Suite struct StalePinTests {
    struct PinsJSON: Decodable {
        struct Pin: Decodable { let pid: Int32; let stale: Bool; let kind: String }
        let pins: [Pin]
    }

    @Test func aDeadProcessesPinIsStaleAndAlertsOnlyWhenAsked() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--kind", "frozen", "--label", "cache", "--seconds", "60"])
        #expect(hold.readLine()?.hasPrefix("pinned version") == true, "\(hold.errorOutput())")
        let live = try FirnRun.run(["pins", db, "--max-age", "0s"])
        #expect(live.status == 1 && live.stderr.contains("pin of pid \(hold.pid) (frozen, \"cache\")"), "\(live.stderr)")
        hold.kill(SIGKILL)
        hold.waitForExit()

        let pins = try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self)
        #expect(pins.pins.count == 1 && pins.pins.first?.stale == true && pins.pins.first?.pid == hold.pid)
        let text = try FirnRun.run(["pins", db, "--max-age", "0s", "--max-lag", "0"])
        #expect(text.status == 0, "a stale pin alerted: \(text.stderr)")
        #expect(text.stdout.contains("(stale: process exited)"), "\(text.stdout)")

        let asked = try FirnRun.run(["pins", db, "--max-age", "0s", "--include-stale"])
        #expect(asked.status == 1 && asked.isCleanFailure, "\(asked.stderr)")
        #expect(asked.stderr.contains("stale pin of pid \(hold.pid) (exited) (frozen, \"cache\")"), "\(asked.stderr)")

        // The next writer reclaims the slot.
        #expect(try FirnRun.run(["load", db], stdin: Data("\"t\"\t\"k\"\t\"v\"\n".utf8)).status == 0)
        #expect(try FirnRun.run(["pins", db, "--json"]).json(PinsJSON.self).pins.isEmpty)
    }
}
