import ArgumentParser
import FirnTools

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, commit slots, space use (live, free, held by pins) and trees.",
        discussion: "JSON keys: formatVersion, pageSize, currentVersion, currentTime, durableVersion, slots[] (slot, valid, current, version, time, problem, unsealed), fileBytes, logicalBytes, liveBytes, freeBytes, pinnedBytes, awaitingReclaimBytes, trees[] (name, entries, depth, rootPage), objectTypes[] (name, objects, primaryKey, properties[] (name, type, optional, primaryKey, indexed, list, target, declaration)), objectTypesProblem, pins, stalePins, writerPID, pinned, note. objectTypes lists the types of the schema the Firn SDK keeps in the file (sys.schema) with the number of objects of each in the version; it is empty for a file the SDK did not write.")

    @Argument(help: "The database file.") var file: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        let report = try Info.run(Info.Options(path: file))
        common.note(report.note)
        if common.json { return try Console.json(report) }
        try Console.line("\(report.path): Firn format \(report.formatVersion), page size \(report.pageSize)")
        try Console.line("  version   \(report.currentVersion) (committed \(report.currentTime))")
        if report.durableVersion < report.currentVersion {
            try Console.line("  durable   \(report.durableVersion) (\(report.currentVersion - report.durableVersion) deferred commit(s) not yet synced: a power loss now opens at \(report.durableVersion))")
        } else {
            try Console.line("  durable   \(report.durableVersion)")
        }
        for slot in report.slots {
            let pending = slot.unsealed ? ", unsealed: not durable yet" : ""
            let role = slot.current ? " (current\(pending))" : slot.problem.map { " (newer, rejected: \($0))" } ?? " (previous)"
            let state = slot.valid ? "v\(slot.version ?? 0) at \(slot.time ?? "?")\(role)"
                : (slot.problem?.hasPrefix("slot is empty") == true ? "empty" : "invalid: \(slot.problem ?? "?")")
            try Console.line("  slot \(slot.slot)    \(state)")
        }
        try Console.line("  file      \(Units.bytes(report.fileBytes)) (\(Units.bytes(report.logicalBytes)) in use by the version's pages)")
        try Console.line("  live      \(Units.bytes(report.liveBytes))")
        try Console.line("  free      \(Units.bytes(report.freeBytes)) (reusable now)")
        try Console.line("  pinned    \(Units.bytes(report.pinnedBytes)) (held for pinned versions)")
        if report.awaitingReclaimBytes > 0 {
            try Console.line("  previous  \(Units.bytes(report.awaitingReclaimBytes)) (seen only by the previous version; free after the next commit)")
        }
        let stale = report.stalePins > 0 ? ", \(report.stalePins) stale" : ""
        let writer = report.writerPID.map { ", writer pid \($0)" } ?? ""
        try Console.line("  pins      \(report.pins)\(stale)\(writer)")
        try Console.line("  trees     \(report.trees.count)")
        let width = max(4, report.trees.map(\.name.count).max() ?? 4)
        for tree in report.trees {
            try Console.line("    \(tree.name.padding(width))  \(Units.grouped(tree.entries).leftPadding(10)) entries  depth \(tree.depth)")
        }
        if let problem = report.objectTypesProblem {
            try Console.line("  objects   unreadable schema: \(problem)")
        } else if !report.objectTypes.isEmpty {
            try Console.line("  types     \(report.objectTypes.count)")
            let typeWidth = max(4, report.objectTypes.map(\.name.count).max() ?? 4)
            for type in report.objectTypes {
                let properties = type.properties.map { property in
                    "\(property.name): \(property.declaration)" + (property.primaryKey ? " (primary key)" : "")
                        + (property.indexed ? " (indexed)" : "")
                }.joined(separator: ", ")
                try Console.line("    \(type.name.padding(typeWidth))  \(Units.grouped(type.objects).leftPadding(10)) objects  \(properties)")
            }
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadding(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
