import ArgumentParser
import FirnCore
import FirnTools
import Foundation
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
            --lock-timeout SECONDS. Read-only commands (info, versions, pins, growth, dump, get, verify, metrics) \
            never modify the database or create files. --version after a command is a database version \
            (dump, get, verify, compact, export, hold); firn --version alone prints the toolkit's version.

            Exit status: 0 ok/clean; 1 a threshold you set was crossed (get: the key is absent); 64 usage error; \
            65 corrupt or failed verification (also a damaged page any command reads, copies or builds on: \
            nothing is written); 66 input missing or not a Firn file; 70 internal error (a bug to report); \
            73 cannot create the output (exists, a directory, no space); 74 I/O error; \
            75 busy (lock timeout, exclusivity refused, or a lock file its holders keep publishing a version \
            the data file does not hold) - retry later; 130 interrupted, nothing changed (load keeps the batches it \
            committed and says how many). A closed stdout (| head) ends a command quietly with 0.
            """,
        subcommands: [
            InfoCommand.self, VersionsCommand.self, PinsCommand.self, GrowthCommand.self, DumpCommand.self,
            GetCommand.self, LoadCommand.self, VerifyCommand.self, MetricsCommand.self, CheckpointCommand.self, CompactCommand.self, ExportCommand.self, ImportCommand.self,
            HoldCommand.self, DemoCommand.self, DemoAppCommand.self,
        ]
    )

    /// The toolkit's version, printed by `firn --version` alone. Not the
    /// parser's `version:`: that answers `--version` after any command, where
    /// `dump`, `get`, `verify`, `compact`, `export` and `hold` take a database version.
    static let toolVersion = "0.1.0"

    static func main() {
        Interruption.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            print(toolVersion)
            Glibc.exit(0)
        }
        if arguments.count == 2 && arguments[0] == "--generate-manual" {
            Glibc.exit(generateManual(into: arguments[1]))
        }
        // The parser's scripts leave the aliases out (`readers`): CompletionScript adds them.
        if arguments.count == 2 && arguments[0] == "--generate-completion-script",
           let shell = CompletionShell(rawValue: arguments[1]) {
            print(CompletionScript.script(for: shell))
            Glibc.exit(0)
        }
        if let unknown = unknownHelpTopic(arguments) {
            Console.error("firn: unknown command '\(unknown)' (see firn help)")
            Glibc.exit(ExitStatus.usage)
        }
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // Help and the help dump exit 0 through the parser; every other
            // parse error is a usage error: 64, one line.
            if exitCode(for: error) == .success { exit(withError: error) }
            Glibc.exit(ExitStatus.reportUsage(error, arguments: arguments))
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

    /// The first name after `firn help` that is no command (the parser's help
    /// prints the top-level help for it and exits 0: a typo would pass a CI step).
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var commands: [ParsableCommand.Type] = Firn.configuration.subcommands
        for (depth, name) in arguments.dropFirst().filter({ !$0.hasPrefix("-") }).enumerated() {
            // `firn help help`: the parser's own command, in no subcommand list.
            if name == "help" && depth == 0 { continue }
            guard let command = commands.first(where: {
                $0.configuration.commandName == name || $0.configuration.aliases.contains(name)
            }) else { return name }
            commands = command.configuration.subcommands
        }
        return nil
    }

    /// `firn --generate-manual DIR` (hidden; `make docs`): writes a man page
    /// per command into DIR (`ManualPage`).
    static func generateManual(into directory: String) -> Int32 {
        do {
            let dump = try JSONDecoder().decode(HelpDump.self, from: Data(Firn._dumpHelp().utf8))
            for page in ManualPage.pages(dump) {
                try Data(page.text.utf8).write(to: URL(fileURLWithPath: directory + "/" + page.name))
            }
            return ExitStatus.ok
        } catch {
            Console.error("firn: \(directory): cannot write the man pages: \(error)")
            return ExitStatus.cannotCreate
        }
    }
}
