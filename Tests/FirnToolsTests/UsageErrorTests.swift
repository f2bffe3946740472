import Foundation
import Testing
import FirnTools

/// Usage errors follow the one-line contract of every other error:
/// `firn: <what is wrong> (see firn help <command>)` on stderr, exit 64,
/// nothing on stdout.
@Suite struct UsageErrorTests {
    static let cases: [(arguments: [String], says: String, help: String)] = [
        (["info"], "missing expected argument '<file>'", "firn help info"),
        (["info", "x.firn", "--frobnicate"], "unknown option '--frobnicate'", "firn help info"),
        (["load", "x.firn", "--batch", "ten"], "'--batch <batch>'", "firn help load"),
        (["export", "x.firn"], "missing expected argument '--output <output>'", "firn help export"),
        (["dump", "x.firn", "--pages", "--entries"], "--pages, --page, --entries and --objects are exclusive", "firn help dump"),
        (["hold", "x.firn", "--kind", "nope"], "unknown pin kind", "firn help hold"),
        (["readers", "x.firn", "--max-lag"], "missing value for '--max-lag <n>'", "firn help pins"),
        (["frobnicate"], "frobnicate", "firn help"),
    ]

    @Test func usageErrorsAreOneLineNamingTheHelpToRead() throws {
        for (arguments, says, help) in Self.cases {
            let run = try FirnRun.run(arguments)
            let shown = arguments.joined(separator: " ")
            #expect(run.status == 64, "\(shown): exit \(run.status)")
            #expect(run.stdout.isEmpty, "\(shown): \(run.stdout)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(shown): \(run.stderr)")
            #expect(run.stderr.hasPrefix("firn: "), "\(shown): \(run.stderr)")
            #expect(run.stderr.lowercased().contains(says.lowercased()), "\(shown): \(run.stderr)")
            #expect(run.stderr.contains("(see \(help))"), "\(shown): \(run.stderr)")
        }
    }

    @Test func helpAndVersionStillExit0OnStdout() throws {
        let help = try FirnRun.run(["help", "compact"])
        #expect(help.status == 0 && help.stdout.contains("--if-free-over") && help.stderr.isEmpty)
        let subHelp = try FirnRun.run(["verify", "--help"])
        #expect(subHelp.status == 0 && subHelp.stdout.contains("--max-errors"))
        let version = try FirnRun.run(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
    }
}
