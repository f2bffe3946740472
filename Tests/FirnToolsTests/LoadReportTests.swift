import Foundation
import Testing
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What `load` says is what the file holds: entries written against keys
/// present, two fields with `--tree`, and an interruption that names the
/// batches it committed (it exited 130 with no word, under a table that
/// said "nothing changed").
@Suite struct LoadReportTests {
    struct LoadJSON: Decodable {
        struct Tree: Decodable { let written, overwritten, keys: UInt64 }
        let entries, overwritten: UInt64
        let batches: Int
        let trees: [String: Tree]
    }

    @Test func duplicateKeysAreReportedAsOverwrittenNotAsKeys() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("dup.firn")
        let input = "\"users\"\t\"alice\"\t\"1\"\n\"users\"\t\"alice\"\t\"2\"\n"
        let text = try FirnRun.run(["load", db, "--no-progress"], stdin: Data(input.utf8))
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == "\(db): wrote 2 entries in 1 commit(s) (new file), now at version 2: users 1 key(s) (1 overwritten)\n",
                "\(text.stdout)")
        // Again: both now replace a key the file holds.
        let json = try FirnRun.run(["load", db, "--json", "--batch", "1"], stdin: Data(input.utf8)).json(LoadJSON.self)
        #expect(json.entries == 2 && json.overwritten == 2 && json.batches == 2)
        let users = try #require(json.trees["users"])
        #expect(users.written == 2 && users.overwritten == 2 && users.keys == 1)
        let info = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self)
        #expect(info.trees.first { $0.name == "users" }?.entries == users.keys)
    }

    @Test func intoOneTreeALineMayBeKeyAndValue() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("two.firn")
        let input = "\"alice\"\t\"31\"\nx00ff\tx01\n\"ignored\"\t\"bob\"\t\"40\"\n"
        let load = try FirnRun.run(["load", db, "--tree", "people", "--json"], stdin: Data(input.utf8))
        #expect(load.status == 0, "\(load.stderr)")
        #expect(try load.json(LoadJSON.self).trees["people"]?.keys == 3)
        let dump = try FirnRun.run(["dump", db, "--entries"])
        #expect(dump.stdout.contains("\"people\"\t\"alice\"\t\"31\"\n") && dump.stdout.contains("\"people\"\tx00ff\tx01\n")
                && dump.stdout.contains("\"people\"\t\"bob\"\t\"40\"\n"), "\(dump.stdout)")
        // Without --tree two fields name no tree: refused, naming the line and what it expects.
        let bare = try FirnRun.run(["load", dir.file("bare.firn")], stdin: Data("\"alice\"\t\"31\"\n".utf8))
        #expect(bare.status == 65 && bare.isCleanFailure)
        #expect(bare.stderr.contains("line 1: expected 3 tab-separated fields (tree, key, value)"), "\(bare.stderr)")
        let four = try FirnRun.run(["load", db, "--tree", "people"], stdin: Data("\"a\"\t\"b\"\t\"c\"\t\"d\"\n".utf8))
        #expect(four.status == 65 && four.stderr.contains("line 1: expected 2 tab-separated fields (key, value)"), "\(four.stderr)")
    }

    @Test func interruptedLoadSaysWhatItCommitted() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("partial.firn")
        let input = Pipe()
        let load = try ChildProcess(BuiltProducts.firn, ["load", db, "--batch", "2", "--no-progress"], input: input)
        // Two whole batches and half of a third; stdin stays open.
        let lines = (1...5).map { "\"t\"\t\"k\($0)\"\t\"v\"\n" }.joined()
        try input.fileHandleForWriting.write(contentsOf: Data(lines.utf8))
        let deadline = Date().addingTimeInterval(30)
        while try FirnRun.run(["get", db, "t", "k4"]).status != 0 && Date() < deadline { usleep(20_000) }
        load.kill(SIGINT)
        #expect(load.waitForExit() == 130)
        let stderr = load.errorOutput()
        #expect(stderr == "firn: \(db): interrupted after 2 batch(es) were committed (4 entries, now at version 3); the batch being read was not loaded\n",
                "\(stderr)")
        #expect(try FirnRun.run(["get", db, "t", "k5"]).status == 1)
        try? input.fileHandleForWriting.close()
    }

    /// Ctrl-C while `load` waits for another writer's lock ends it at once,
    /// saying nothing was loaded (not after the lock timeout).
    @Test func interruptedWhileWaitingForTheLockEndsAtOnce() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let writer = try ChildProcess.testkit(["lock-writer", db, "120"])
        #expect(writer.readLine() == "ready")
        let input = Pipe()
        let load = try ChildProcess(BuiltProducts.firn, ["load", db, "--lock-timeout", "100", "--no-progress"], input: input)
        try input.fileHandleForWriting.write(contentsOf: Data("\"t\"\t\"k\"\t\"v\"\n".utf8))
        try input.fileHandleForWriting.close()
        // Long enough to be waiting for the lock (a loaded machine may take a while to start it).
        usleep(1_500_000)
        let signalled = Date()
        load.kill(SIGINT)
        #expect(load.waitForExit(timeout: .seconds(20)) == 130)
        #expect(Date().timeIntervalSince(signalled) < 15)
        #expect(load.errorOutput() == "firn: \(db): interrupted before the first batch was committed; nothing was loaded\n")
    }
}
