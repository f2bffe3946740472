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
        var options = Demo.Options(directory: directory, executable: executable)
        options.showSteps = !common.json
        let report = try Demo.run(options) { line in
            if !common.json { _ = try? Console.line(line) }
        }
        if common.json { try Console.json(report) }
        if !report.failedSteps.isEmpty {
            throw ToolError.usage("demo steps failed: \(report.failedSteps.joined(separator: "; "))")
        }
    }
}
