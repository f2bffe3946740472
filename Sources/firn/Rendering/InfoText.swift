import FirnCore
import FirnTools

/// `firn info`'s text: the format, slots, the commit log, space, pins,
/// trees and object types of the current version.
enum InfoText {
    static func lines(_ report: Info.Report, file: String) -> [String] {
        var lines: [String] = []
        lines.append("\(file): Firn format \(report.formatVersion), page size \(report.pageSize)")
        lines.append("  version   \(report.currentVersion) (committed \(report.currentTime))")
        if report.durableVersion < report.currentVersion {
            lines.append("  durable   \(report.durableVersion) (\(report.currentVersion - report.durableVersion) deferred commit(s) not yet synced: a power loss now opens at \(report.durableVersion))")
        } else {
            lines.append("  durable   \(report.durableVersion)")
        }
        for slot in report.slots {
            let pending = slot.unsealed ? ", unsealed: not durable yet" : ""
            let checkpoint = slot.current && slot.version != report.currentVersion
                ? ": the checkpoint; version \(report.currentVersion) is a frame of its log" : ""
            let role = slot.current ? " (current\(checkpoint)\(pending))" : slot.problem.map { " (newer, rejected: \($0))" } ?? " (previous)"
            let state = slot.valid ? "v\(slot.version ?? 0) at \(slot.time ?? "?")\(role)"
                : (slot.problem?.hasPrefix("slot is empty") == true ? "empty" : "invalid: \(slot.problem ?? "?")")
            lines.append("  slot \(slot.slot)    \(state)")
        }
        if let log = report.log { lines += Self.lines(log) }
        lines.append("  file      \(Human.bytes(report.fileBytes)) (\(Human.bytes(report.logicalBytes)) in use by the version's pages)")
        lines.append("  live      \(Human.bytes(report.liveBytes))")
        lines.append("  free      \(Human.bytes(report.freeBytes)) (reusable now)")
        lines.append("  pinned    \(Human.bytes(report.pinnedBytes)) (held for pinned versions)")
        let onLog = report.log != nil
        let next = onLog ? "checkpoint" : "commit"
        if report.awaitingReclaimBytes > 0 {
            let later = report.awaitingReclaimBytes - min(report.awaitingReclaimBytes, report.freedByNextCommitBytes)
            lines.append("  awaiting  \(Human.bytes(report.awaitingReclaimBytes)) (no pin sees it; the versions in the slots do: "
                         + "\(Human.bytes(report.freedByNextCommitBytes)) free after the next \(next), \(Human.bytes(later)) after the one after)")
        }
        if let checkpoint = report.nextCheckpoint {
            let shared = checkpoint.sharedBytes > 0 ? ", \(Human.bytes(checkpoint.sharedBytes)) of it shared" : ""
            lines.append("  next ckpt replaces ≥ \(Human.bytes(checkpoint.replacedBytes)) (the log region \(Human.bytes(checkpoint.regionBytes)) and the pages "
                         + "\(Human.grouped(checkpoint.frames)) frame(s) change); pins will hold \(Human.bytes(checkpoint.heldByPinsBytes)) of it\(shared)")
        }
        let stale = report.stalePins > 0 ? ", \(report.stalePins) stale" : ""
        let writer = report.writerPID.map { ", writer pid \($0)" } ?? ""
        lines.append("  pins      \(report.pins)\(stale)\(writer)")
        lines.append("  trees     \(report.trees.count)")
        let width = max(4, report.trees.map(\.name.count).max() ?? 4)
        for tree in report.trees {
            let logged: String
            switch (tree.loggedKeys, tree.loggedReset) {
            case (nil, _): logged = ""
            case let (keys?, _) where tree.depth == 0:
                // Created (or dropped and created again) in the log: the
                // checkpoint's pages of it, if any, no longer show.
                logged = ", all \(Human.grouped(UInt64(keys))) key(s) in the log: no pages until the next checkpoint"
            case let (keys?, _): logged = ", \(Human.grouped(UInt64(keys))) key(s) changed in the log"
            }
            lines.append("    \(tree.name.padding(width))  \(Human.grouped(tree.entries).leftPadding(10)) entries  depth \(tree.depth)\(logged)")
        }
        if let problem = report.objectTypesProblem {
            lines.append("  objects   unreadable schema: \(problem)")
        } else if !report.objectTypes.isEmpty {
            lines.append("  types     \(report.objectTypes.count)")
            let typeWidth = max(4, report.objectTypes.map(\.name.count).max() ?? 4)
            for type in report.objectTypes {
                let properties = type.properties.map { property in
                    "\(property.name): \(property.declaration)" + (property.primaryKey ? " (primary key)" : "")
                        + (property.indexed ? " (indexed)" : "")
                }.joined(separator: ", ")
                lines.append("    \(type.name.padding(typeWidth))  \(Human.grouped(type.objects).leftPadding(10)) objects  \(properties)")
            }
        }
        return lines
    }

    /// The commit log's lines (FORMAT.md 8.2).
    static func lines(_ log: LogReport) -> [String] {
        var lines: [String] = []
        lines.append("  log       epoch \(log.epoch): pages \(log.firstPage)…\(log.firstPage + log.pages - 1) (\(log.pages) pages, \(Human.bytes(log.bytes)))")
        let deferred = log.deferredFrames > 0 ? " (\(log.deferredFrames) deferred)" : ""
        lines.append("  frames    \(log.commitFrames) commit(s)\(deferred), \(log.sealFrames) seal(s): newest \(log.newestVersion), durable \(log.durableVersion)")
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
        lines.append("  log end   \(end); \(Human.bytes(log.usedBytes)) used, \(Human.bytes(log.freeBytes)) free\(next)")
        let published = log.publishedVersion.map { "; \($0) as published in the lock file" } ?? "; no lock file publishes a version"
        // `Info` sets the first opener's version on every log it reports
        // (only `verify`'s reports, which have no such line, lack it).
        if let firstOpener = log.firstOpenerVersion {
            let why = firstOpener == log.durableVersion ? " (the log's durable version)" : ""
            lines.append("  opens at  \(firstOpener) for a first opener\(why)\(published)")
        }
        if let version = log.unappliedVersion {
            lines.append("  unreadable frame of version \(version) at page \(log.unappliedPage.map(String.init) ?? "?"): \(log.unappliedDetail ?? "?") (firn verify reports it)")
        }
        return lines
    }
}
