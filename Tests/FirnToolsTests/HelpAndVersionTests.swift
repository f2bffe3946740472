import Foundation
import Testing
import FirnTestSupport

/// One meaning per word a script types: `--version` alone is the toolkit's
/// version, after a command a database version (or a usage error where the
/// command reads none); `firn help` of something that is no command is a
/// usage error, not the top-level help with exit 0.
@Suite struct HelpAndVersionTests {
    @Test func helpOfAnUnknownCommandIsAUsageError() throws {
        for arguments in [["help", "nosuch"], ["help", "demo-app", "nosuch"]] {
            let run = try FirnRun.run(arguments)
            #expect(run.status == 64, "\(arguments): exit \(run.status)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
            #expect(run.stderr == "firn: unknown command 'nosuch' (see firn help)\n", "\(arguments): \(run.stderr)")
        }
        for arguments in [["help"], ["help", "pins"], ["help", "readers"], ["help", "demo-app", "cache"], ["help", "get"]] {
            let run = try FirnRun.run(arguments)
            #expect(run.status == 0 && !run.stdout.isEmpty, "\(arguments): exit \(run.status) \(run.stderr)")
        }
    }

    @Test func versionAloneIsTheToolkitsVersion() throws {
        let run = try FirnRun.run(["--version"])
        #expect(run.status == 0 && run.stdout == "0.1.0\n")
    }

    /// `firn info FILE --version 3` printed the toolkit's version and exited 0.
    @Test func versionAfterACommandIsADatabaseVersionOrAUsageError() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        for command in ["info", "versions", "pins", "growth", "checkpoint", "load"] {
            let run = try FirnRun.run([command, db, "--version", "3"])
            #expect(run.status == 64, "\(command): exit \(run.status) \(run.stdout)")
            #expect(run.stderr.contains("unknown option '--version'") && run.stdout.isEmpty, "\(command): \(run.stderr)")
            let bare = try FirnRun.run([command, db, "--version"])
            #expect(bare.status == 64 && bare.stdout.isEmpty, "\(command) --version: exit \(bare.status) \(bare.stdout)")
        }
        // Every command that reads a version takes the same option, checked the same way.
        let reading: [[String]] = [["dump", db], ["get", db, "users", "user:00001"], ["verify", db],
                                   ["compact", db, "-o", dir.file("c.firn")], ["export", db, "-o", dir.file("e.lz4")],
                                   ["hold", db, "--seconds", "0"]]
        for command in reading {
            let zero = try FirnRun.run(command + ["--version", "0"])
            #expect(zero.status == 64 && zero.stderr.contains("expected a whole number from 1 to"), "\(command): \(zero.stderr)")
            let missing = try FirnRun.run(command + ["--version"])
            #expect(missing.status == 64 && missing.stdout.isEmpty, "\(command): exit \(missing.status) \(missing.stdout)")
            let help = try FirnRun.run(["help", command[0]])
            let listed = help.stdout.split(separator: "\n").filter { $0.drop { $0 == " " }.hasPrefix("--version") }.count
            #expect(listed == 1, "help \(command[0]) lists --version \(listed) times:\n\(help.stdout)")
            #expect(!help.stdout.contains("Show the version"), "help \(command[0])")
        }
        let version = try FirnRun.run(["info", db, "--json"]).json(InfoJSON.self).currentVersion
        let current = try FirnRun.run(["dump", db, "--version", "\(version)", "--entries", "--tree", "users"])
        #expect(current.status == 0 && current.stdout.contains("user:"), "\(current.stderr)")
    }

    /// The top-level help's exit statuses are the README's: 70 was missing.
    @Test func topLevelHelpListsEveryExitStatus() throws {
        let help = try FirnRun.run(["--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        for code in [0, 1, 64, 65, 66, 70, 73, 74, 75, 130] {
            #expect(help.contains(" \(code) "), "firn --help does not list exit status \(code)")
        }
    }
}
