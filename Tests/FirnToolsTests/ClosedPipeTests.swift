import Foundation
import Testing
import FirnTestSupport

/// `firn … | head`: the reader closing stdout is not an error of the
/// command (it printed "Broken pipe (errno 32)" and exited 74): it ends
/// quietly with exit 0.
@Suite struct ClosedPipeTests {
    /// A database whose dump is far larger than a pipe holds, so the
    /// command is still writing when `head` exits.
    static func largeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.file("large.firn")
        let lines = (0..<20_000).map { "\"t\"\t\"key \(100_000 + $0)\"\t\"value \($0) \(String(repeating: "x", count: 40))\"\n" }
        let load = try FirnRun.run(["load", db, "--no-progress"], stdin: Data(lines.joined().utf8))
        #expect(load.status == 0, "\(load.stderr)")
        return db
    }

    @Test(arguments: [["dump", "--entries"], ["dump", "--entries", "--json"], ["dump", "--entries", "--hex"]])
    func aClosedStdoutEndsTheCommandQuietly(_ command: [String]) throws {
        let dir = try TemporaryDirectory()
        let db = try Self.largeDatabase(dir)
        let errors = dir.file("stderr")
        let script = #""$0" "$1" "$2" "${@:3}" 2>"$ERRORS" | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}""#
        let run = try ChildProcess.run("/bin/bash", ["-c", script, BuiltProducts.firn, command[0], db] + Array(command.dropFirst()),
                                       environment: ["ERRORS": errors])
        #expect(run.status == 0)
        #expect(run.stdout == "0\n", "\(command): firn exited \(run.stdout)")
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(stderr.isEmpty, "\(command): \(stderr)")
    }
}
