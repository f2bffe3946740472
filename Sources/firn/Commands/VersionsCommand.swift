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
        let report = try Versions.run(Versions.Options(path: file))
        common.note(report.note)
        if common.json { return try Console.json(report) }
        try Console.line("VERSION  LAG    TIME                  ROLES                      HOLDERS")
        for v in report.versions {
            let holders = v.holders.map { "pid \($0.pid) \($0.kind)\($0.label.isEmpty ? "" : " \"\($0.label)\"")" }.joined(separator: ", ")
            let roles = v.roles.map(\.rawValue).joined(separator: ",") + (v.readable ? "" : " (not readable)")
            let line = "\(String(v.version).padding(8)) \(String(v.lag).padding(6)) \((v.time ?? "-").padding(21)) \(roles.padding(26)) \(holders)"
            try Console.line(String(line.reversed().drop { $0 == " " }.reversed()))
        }
    }
}
