import Foundation
import Testing
import FirnTools
import FirnTestSupport

/// Every numeric option of every command rejects non-finite, negative and
/// out-of-range values with exit 64 and one line naming the option and the
/// range it accepts — never a crash.
@Suite struct NumericOptionTests {
    struct Row: CustomStringConvertible, Sendable {
        /// The command line before the option (the file does not exist, so a
        /// value wrongly accepted fails fast instead of running).
        let command: [String]
        let option: String
        /// How the error states the accepted range.
        let range: String
        /// A value just past the range, spelled as the option takes it.
        let pastRange: String
        var description: String { "\(command.first ?? "") \(option)" }
    }

    static let file = "/nonexistent-firn-test-dir/x.firn"
    static let out = "/nonexistent-firn-test-dir/out"
    static let maxVersion = "9223372036854775807"
    static let pastVersion = "9223372036854775808"

    static let rows: [Row] = [
        Row(command: ["info", file], option: "--lock-timeout", range: "from 0 to 86400", pastRange: "86401"),
        Row(command: ["load", file], option: "--lock-timeout", range: "from 0 to 86400", pastRange: "1e6"),
        Row(command: ["compact", file], option: "--if-free-over", range: "from 0 to 100", pastRange: "100.5"),
        Row(command: ["compact", file, "-o", out], option: "--version", range: "from 1 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["dump", file], option: "--version", range: "from 1 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["dump", file], option: "--page", range: "from 0 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["dump", file, "--objects"], option: "--limit", range: "from 1 to 1000000000", pastRange: "1000000001"),
        Row(command: ["demo-app", "write", file], option: "--commits", range: "from 1 to 100000", pastRange: "100001"),
        Row(command: ["demo-app", "cache", file], option: "--seconds", range: "from 0 to 31536000", pastRange: "31536001"),
        Row(command: ["export", file, "-o", out], option: "--level", range: "from 0 to 12", pastRange: "13"),
        Row(command: ["export", file, "-o", out], option: "--version", range: "from 1 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["growth", file], option: "--width", range: "from 10 to 400", pastRange: "401"),
        Row(command: ["hold", file], option: "--seconds", range: "from 0 to 31536000", pastRange: "31536001"),
        Row(command: ["hold", file], option: "--version", range: "from 1 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["load", file], option: "--batch", range: "from 1 to 10000000", pastRange: "10000001"),
        Row(command: ["pins", file], option: "--max-lag", range: "from 0 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["pins", file], option: "--max-age", range: "from 0s to 3650d", pastRange: "3651d"),
        Row(command: ["pins", file], option: "--max-retained", range: "from 0 to 1024TiB", pastRange: "1025TiB"),
        Row(command: ["verify", file], option: "--version", range: "from 1 to \(maxVersion)", pastRange: pastVersion),
        Row(command: ["verify", file], option: "--max-errors", range: "from 1 to 1000000", pastRange: "1000001"),
    ]

    @Test(arguments: rows)
    func rejectsNonFiniteNegativeAndOutOfRangeValuesWith64(_ row: Row) throws {
        for value in ["inf", "-inf", "nan", "-1", "1e300", row.pastRange, "99999999999999999999999"] {
            for arguments in [row.command + [row.option, value], row.command + ["\(row.option)=\(value)"]] {
                let run = try FirnRun.run(arguments, stdin: Data())
                let shown = arguments.joined(separator: " ")
                #expect(run.status == 64, "\(shown): exit \(run.status): \(run.stderr)")
                #expect(run.isCleanFailure && run.errorLines.count == 1, "\(shown): \(run.stderr)")
                #expect(run.stderr.hasPrefix("firn: "), "\(shown): \(run.stderr)")
                #expect(run.stderr.contains(row.option) && run.stderr.contains(row.range), "\(shown): \(run.stderr)")
            }
        }
    }

    @Test func holdWithTheLargestAcceptedSecondsStillRuns() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--seconds", "31536000"])
        #expect(hold.readLine()?.contains("pinned version") == true)
        hold.kill(SIGINT)
        #expect(hold.waitForExit() == 0)
    }
}
