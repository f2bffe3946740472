import ArgumentParser
import FirnTools

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, commit slots, space use (live, free, held by pins) and trees.",
        discussion: "JSON keys: formatVersion, pageSize, currentVersion, currentTime, durableVersion, slots[] (slot, valid, current, version, time, problem, unsealed), fileBytes, logicalBytes, liveBytes, freeBytes, pinnedBytes, awaitingReclaimBytes, freedByNextCommitBytes, nextCheckpoint (checkpoint, frames, replacedBytes, regionBytes, heldByPinsBytes, sharedBytes), trees[] (name, entries, depth, rootPage, loggedKeys, loggedReset), objectTypes[] (name, objects, primaryKey, properties[] (name, type, optional, primaryKey, indexed, list, target, declaration)), objectTypesProblem, log (epoch, firstPage, pages, bytes, commitFrames, deferredFrames, sealFrames, newestVersion, durableVersion, end: full, blank, foreign, otherEpoch, torn, stale or damaged, endOffset, endPage, endEpoch, endDetail, usedBytes, freeBytes, firstOpenerVersion, publishedVersion, unappliedPage, unappliedVersion, unappliedDetail), pins, stalePins, writerPID, pinned, note. log is the commit log of the checkpoint the version reads through, when it made one: the frames a scan of its region accepts, where the scan stopped and why (offsets are bytes from the region's start), and the version a first opener takes (the log's durable version) against the one the lock file publishes. objectTypes lists the types of the schema the Firn SDK keeps in the file (sys.schema) with the number of objects of each in the version; it is empty for a file the SDK did not write.")

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
            let checkpoint = slot.current && slot.version != report.currentVersion
                ? ": the checkpoint; version \(report.currentVersion) is a frame of its log" : ""
            let role = slot.current ? " (current\(checkpoint)\(pending))" : slot.problem.map { " (newer, rejected: \($0))" } ?? " (previous)"
            let state = slot.valid ? "v\(slot.version ?? 0) at \(slot.time ?? "?")\(role)"
                : (slot.problem?.hasPrefix("slot is empty") == true ? "empty" : "invalid: \(slot.problem ?? "?")")
            try Console.line("  slot \(slot.slot)    \(state)")
        }
        if let log = report.log { try Self.render(log) }
        try Console.line("  file      \(Units.bytes(report.fileBytes)) (\(Units.bytes(report.logicalBytes)) in use by the version's pages)")
        try Console.line("  live      \(Units.bytes(report.liveBytes))")
        try Console.line("  free      \(Units.bytes(report.freeBytes)) (reusable now)")
        try Console.line("  pinned    \(Units.bytes(report.pinnedBytes)) (held for pinned versions)")
        let onLog = report.log != nil
        let next = onLog ? "checkpoint" : "commit"
        if report.awaitingReclaimBytes > 0 {
            let later = report.awaitingReclaimBytes - min(report.awaitingReclaimBytes, report.freedByNextCommitBytes)
            try Console.line("  awaiting  \(Units.bytes(report.awaitingReclaimBytes)) (no pin sees it; the versions in the slots do: "
                             + "\(Units.bytes(report.freedByNextCommitBytes)) free after the next \(next), \(Units.bytes(later)) after the one after)")
        }
        if let checkpoint = report.nextCheckpoint {
            let shared = checkpoint.sharedBytes > 0 ? ", \(Units.bytes(checkpoint.sharedBytes)) of it shared" : ""
            try Console.line("  next ckpt replaces ≥ \(Units.bytes(checkpoint.replacedBytes)) (the log region \(Units.bytes(checkpoint.regionBytes)) and the pages "
                             + "\(Units.grouped(checkpoint.frames)) frame(s) change); pins will hold \(Units.bytes(checkpoint.heldByPinsBytes)) of it\(shared)")
        }
        let stale = report.stalePins > 0 ? ", \(report.stalePins) stale" : ""
        let writer = report.writerPID.map { ", writer pid \($0)" } ?? ""
        try Console.line("  pins      \(report.pins)\(stale)\(writer)")
        try Console.line("  trees     \(report.trees.count)")
        let width = max(4, report.trees.map(\.name.count).max() ?? 4)
        for tree in report.trees {
            let logged: String
            switch (tree.loggedKeys, tree.loggedReset) {
            case (nil, _): logged = ""
            case let (keys?, _) where tree.depth == 0:
                // Created (or dropped and created again) in the log: the
                // checkpoint's pages of it, if any, no longer show.
                logged = ", all \(Units.grouped(UInt64(keys))) key(s) in the log: no pages until the next checkpoint"
            case let (keys?, _): logged = ", \(Units.grouped(UInt64(keys))) key(s) changed in the log"
            }
            try Console.line("    \(tree.name.padding(width))  \(Units.grouped(tree.entries).leftPadding(10)) entries  depth \(tree.depth)\(logged)")
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

extension InfoCommand {
    /// The commit log's lines (FORMAT.md 8.2).
    static func render(_ log: Info.Log) throws {
        try Console.line("  log       epoch \(log.epoch): pages \(log.firstPage)…\(log.firstPage + log.pages - 1) (\(log.pages) pages, \(Units.bytes(log.bytes)))")
        let deferred = log.deferredFrames > 0 ? " (\(log.deferredFrames) deferred)" : ""
        try Console.line("  frames    \(log.commitFrames) commit(s)\(deferred), \(log.sealFrames) seal(s): newest \(log.newestVersion), durable \(log.durableVersion)")
        let place = "region byte \(log.endOffset)" + (log.endPage.map { " (page \($0))" } ?? "")
        let detail = log.endDetail.map { ": \($0)" } ?? ""
        let end: String
        switch log.end {
        case .full: end = "full after \(place)"
        case .blank: end = "blank at \(place)"
        case .foreign: end = "other data at \(place)"
        case .otherEpoch: end = "a frame of epoch \(log.endEpoch.map(String.init) ?? "?") at \(place)"
        case .torn: end = "torn at \(place)\(detail)"
        case .stale: end = "stale at \(place)\(detail)"
        case .damaged: end = "damaged at \(place)\(detail)"
        }
        let next = log.end.allowsAppend ? "" : "; no frame may follow: the next commit is a checkpoint"
        try Console.line("  log end   \(end); \(Units.bytes(log.usedBytes)) used, \(Units.bytes(log.freeBytes)) free\(next)")
        let published = log.publishedVersion.map { "; \($0) as published in the lock file" } ?? "; no lock file publishes a version"
        let why = log.firstOpenerVersion == log.durableVersion ? " (the log's durable version)" : ""
        try Console.line("  opens at  \(log.firstOpenerVersion) for a first opener\(why)\(published)")
        if let version = log.unappliedVersion {
            try Console.line("  unreadable frame of version \(version) at page \(log.unappliedPage.map(String.init) ?? "?"): \(log.unappliedDetail ?? "?") (firn verify reports it)")
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadding(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
