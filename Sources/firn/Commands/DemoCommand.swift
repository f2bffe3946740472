import ArgumentParser
import FirnTools
import Foundation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build DIR/demo.firn, pin an early version from a second process, and tour the other commands on it.")

    @Argument(help: "Where to build demo.firn (default: a new temporary directory).") var directory: String?
    @OptionGroup var common: CommonOptions

    func run() throws {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let report = try Demo.run(Demo.Options(directory: directory, executable: executable)) { line in
            if !common.json { _ = try? Console.line(line) }
        }
        if common.json { try Console.json(report) }
        if !report.failedSteps.isEmpty {
            throw ToolError.usage("demo steps failed: \(report.failedSteps.joined(separator: "; "))")
        }
    }
}
