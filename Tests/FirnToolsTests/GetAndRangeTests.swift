import Foundation
import Testing
import FirnTestSupport

/// Reading one thing without `dump | grep`: `firn get FILE TREE KEY` (the
/// value on stdout, exit 1 when absent, as `bbolt get`) and `dump
/// --entries --from KEY --to KEY --limit N`.
@Suite struct GetAndRangeTests {
    @Test func getPrintsTheValueOrExits1WhenAbsent() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("get.firn")
        let input = "\"users\"\t\"alice\"\t\"{\\\"age\\\": 31}\"\n\"users\"\tx00ff\tx0a0b00\n\"users\"\t\"empty\"\t\"\"\n"
        #expect(try FirnRun.run(["load", db], stdin: Data(input.utf8)).status == 0)

        let found = try FirnRun.run(["get", db, "users", "alice"])
        #expect(found.status == 0 && found.stdout == "{\"age\": 31}\n" && found.stderr.isEmpty, "\(found.stderr)")
        let empty = try FirnRun.run(["get", db, "users", "empty"])
        #expect(empty.status == 0 && empty.stdout == "\n")
        let hex = try FirnRun.run(["get", db, "users", "00FF", "--hex"])
        #expect(hex.status == 0 && hex.stdout == "0a0b00\n", "\(hex.stderr)")

        let absent = try FirnRun.run(["get", db, "users", "bob"])
        #expect(absent.status == 1 && absent.stdout.isEmpty && absent.isCleanFailure)
        #expect(absent.stderr == "firn: \(db): no key \"bob\" in tree \"users\" at version 2\n", "\(absent.stderr)")
        let noTree = try FirnRun.run(["get", db, "orders", "alice"])
        #expect(noTree.status == 1 && noTree.stderr == "firn: \(db): no tree \"orders\" in version 2\n", "\(noTree.stderr)")

        struct GetJSON: Decodable { let tree, key: String; let value: String?; let absence: String?; let version: UInt64 }
        let json = try FirnRun.run(["get", db, "users", "alice", "--json"]).json(GetJSON.self)
        #expect(json.key == "\"alice\"" && json.value == "\"{\\\"age\\\": 31}\"" && json.absence == nil && json.version == 2)
        let missing = try FirnRun.run(["get", db, "users", "bob", "--json"])
        #expect(missing.status == 1)
        #expect(try missing.json(GetJSON.self).absence == "noKey")

        #expect(try FirnRun.run(["get", db, "users", "zz", "--hex"]).status == 64)
        #expect(try FirnRun.run(["get", dir.file("none.firn"), "users", "alice"]).status == 66)
    }

    @Test func dumpEntriesTakesARangeAndALimit() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        func keys(_ arguments: [String]) throws -> [String] {
            let run = try FirnRun.run(["dump", db, "--entries"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
                let fields = line.split(separator: "\t")
                return fields.count == 3 ? "\(fields[0]) \(fields[1])" : String(line)
            }
        }
        #expect(try keys(["--tree", "users", "--from", "user:00010", "--to", "user:00013"])
                == ["\"users\" \"user:00010\"", "\"users\" \"user:00011\"", "\"users\" \"user:00012\""])
        #expect(try keys(["--tree", "users", "--from", "user:00700"]).count == 20)
        #expect(try keys(["--tree", "users", "--to", "user:00002"]) == ["\"users\" \"user:00000\"", "\"users\" \"user:00001\""])
        // Hex bounds, as --hex writes keys.
        let from = Array("user:00005".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(try keys(["--tree", "users", "--hex", "--from", from, "--limit", "1"]) == ["\"users\" x\(from)"])
        // The limit counts entries over every tree; a range that leaves a tree empty prints no line for it.
        #expect(try keys(["--limit", "3"]).count == 3)
        #expect(try keys(["--from", "zzz"]).isEmpty)

        #expect(try FirnRun.run(["dump", db, "--from", "a"]).status == 64)
        #expect(try FirnRun.run(["dump", db, "--entries", "--limit", "0"]).status == 64)
        #expect(try FirnRun.run(["dump", db, "--entries", "--hex", "--to", "xyz"]).status == 64)
    }
}
