import ArgumentParser
import FirnTools

struct VersionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List every readable version: current, durable, previous slot, and each pinned version with its holders.",
        discussion: "JSON keys: currentVersion, durableVersion, versions[] (version, time, roles, lag, readable, holders[] (pid, kind, label, sinceSeconds)), pinned, note. Roles: current, durable, previous (the other commit slot), pinned, rejected; on the commit log also checkpoint (a record that made a log region) or frame (a commit in a checkpoint's log). readable: dump --version can read it now.")

    @Argument(help: "The database file.") var file: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try Self.show(try Versions.run(Versions.Options(path: file)), common.format)
    }

    static func show(_ report: Versions.Report, _ format: ReportFormat) throws {
        try format.show(note: report.note, json: { report }, text: { VersionsText.lines(report) })
    }
}
