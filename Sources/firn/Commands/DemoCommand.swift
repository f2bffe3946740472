import ArgumentParser
import FirnDemo
import FirnTools
import Foundation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build DIR/demo.firn with the SDK, cache frozen objects of an early version in a second process, and tour the other commands on it.",
        discussion: "The second process (firn demo-app cache) freezes every Dog and keeps the frozen objects while the first commits 240 more versions, so pins and growth show what caching frozen objects costs the file and who causes it. JSON keys: directory, database, commits, pinnedVersion, cachePID, frozenObjects, failedSteps.")

    @Argument(help: "Where to build demo.firn (default: a new temporary directory).") var directory: String?
    @OptionGroup var common: CommonOptions

    func run() throws {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        // With --json, stdout is the tour's report alone: the steps run silently.
        let steps: ReportFormat = common.json ? .silent : .text
        let report = try Demo.run(Demo.Options(directory: directory, executable: executable), event: { event in
            if !common.json { for line in DemoText.lines(event) { _ = try? Console.line(line) } }
        }, step: { step in
            if !common.json { for line in DemoText.command(step) { _ = try? Console.line(line) } }
            do {
                try Self.show(step, steps)
                return ExitStatus.ok
            } catch {
                return ExitStatus.report(error)
            }
        })
        if common.json { try Console.json(report) }
        if !report.failedSteps.isEmpty {
            throw ToolError.usage("demo steps failed: \(report.failedSteps.joined(separator: "; "))")
        }
    }

    /// Renders a step of the tour as its command renders its report, and
    /// throws what the command would exit with.
    static func show(_ step: Demo.Step, _ format: ReportFormat) throws {
        let file = step.file
        switch try step.outcome.get() {
        case let .checkpoint(report): try CheckpointCommand.show(report, file: file, format)
        case let .versions(report): try VersionsCommand.show(report, format)
        case let .pins(report): try PinsCommand.show(report, file: file, format)
        case let .info(report): try InfoCommand.show(report, file: file, format)
        case let .objects(listing, limit): try DumpCommand.show(listing, file: file, limit: limit, format)
        case let .growth(report, width): try GrowthCommand.show(report, file: file, width: width, format)
        case let .verify(report):
            try VerifyCommand.show(report, file: file, format)
            try VerifyCommand.check(report, file: file)
        case let .compact(report, output): try CompactCommand.show(report, file: file, output: output, format)
        case let .export(report, output): try ExportCommand.show(report, file: file, output: output, format)
        case let .importing(report, output): try ImportCommand.show(report, snapshot: file, output: output, format)
        }
    }
}
