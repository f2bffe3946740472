import ArgumentParser
import FirnCore
import FirnTools
#if canImport(Glibc)
import Glibc
#endif

/// The `firn` toolkit: parses arguments, runs one FirnTools operation,
/// renders its report, and maps any error to one exit status (`ExitStatus`).
@main
struct Firn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firn",
        abstract: "Inspect and maintain Firn database files.",
        discussion: """
            Every command takes --json (stable keys), --progress/--no-progress and \
            --lock-timeout SECONDS. Read-only commands (info, versions, pins, growth, dump, verify) \
            never modify the database or create files.

            Exit status: 0 ok/clean; 1 a threshold you set was crossed; 64 usage error; \
            65 corrupt or failed verification (also a damaged page any command reads, copies or builds on: \
            nothing is written); 66 input missing or not a Firn file; \
            73 cannot create the output (exists, no space); 74 I/O error; \
            75 busy (lock timeout, exclusivity refused, or a lock file its holders keep publishing a version \
            the data file does not hold) - retry later; 130 interrupted, nothing changed.
            """,
        version: "0.1.0",
        subcommands: [
            InfoCommand.self, VersionsCommand.self, PinsCommand.self, GrowthCommand.self, DumpCommand.self,
            LoadCommand.self, VerifyCommand.self, CheckpointCommand.self, CompactCommand.self, ExportCommand.self, ImportCommand.self,
            HoldCommand.self, DemoCommand.self, DemoAppCommand.self,
        ]
    )

    static func main() {
        Interruption.install()
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // Help, --version and generated scripts exit 0 through the parser;
            // every other parse error is a usage error: 64, one line.
            if exitCode(for: error) == .success { exit(withError: error) }
            Glibc.exit(ExitStatus.reportUsage(error, arguments: Array(CommandLine.arguments.dropFirst())))
        }
        do {
            try command.run()
            Glibc.exit(0)
        } catch let error as FirnError {
            Glibc.exit(ExitStatus.report(error))
        } catch let error as ToolError {
            Glibc.exit(ExitStatus.report(error))
        } catch {
            // The parser's own errors (help for a command without run, validation).
            if exitCode(for: error) == .success { exit(withError: error) }
            Glibc.exit(ExitStatus.report(error))
        }
    }
}
