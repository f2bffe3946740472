import FirnTools

/// `firn verify`'s text: the slots, each tree walked, the commit log, the
/// page accounting, findings, and the verdict.
enum VerifyText {
    static func lines(_ report: Verify.Report, file: String) -> [String] {
        var lines: [String] = []
        let v = report.verify
        // The version readers take: the one checked, or one whose log
        // frame cannot be applied (its checkpoint was checked).
        let current = report.unreadableVersion ?? v.version
        for slot in v.slots {
            let state = !slot.valid ? "invalid (\(slot.problem ?? "?"))"
                : "v\(slot.version ?? 0)" + (!slot.current ? "" : current == slot.version ? " (current)"
                    : " (current: the checkpoint; version \(current) is a frame of its log)") + (slot.unsealed ? " (unsealed: not durable yet)" : "")
                    + (slot.problem.map { " (note: \($0))" } ?? "")
            lines.append("slot \(slot.slot): \(state)")
        }
        // A version between checkpoints has no pages of its own: the
        // trees walked are its checkpoint's (the log line covers the frames).
        let walked = v.log.map { $0.epoch != v.version ? " at checkpoint v\($0.epoch)" : "" } ?? ""
        for tree in v.trees {
            lines.append("tree \(tree.kind.label(tree.name))\(walked): \(Human.grouped(tree.entries)) entries, depth \(tree.depth), \(tree.branchPages) branch + \(tree.leafPages) leaf + \(tree.overflowPages) overflow pages")
        }
        if let log = v.log {
            let place = "region byte \(log.endOffset)" + (log.endPage.map { ", page \($0)" } ?? "")
            lines.append("log: epoch \(log.epoch), pages \(log.firstPage)…\(log.firstPage + log.pages - 1), \(log.commitFrames) commit + \(log.sealFrames) seal frame(s), newest \(log.newestVersion), durable \(log.durableVersion), ends \(log.end.rawValue) at \(place); frames applied up to version \(log.appliedVersion)")
            for note in log.notes ?? [] { lines.append("log note: \(note)") }
        }
        lines.append("pages: \(v.logicalPages) total = \(v.reachablePages) reachable + \(v.freePages) free + \(v.retiredPages) retired")
        if let note = report.lockFile.note { lines.append("lock file: \(note)") }
        for finding in v.findings { lines.append("FINDING: \(finding)") }
        if v.truncated { lines.append("(stopped after \(v.findings.count) findings; --max-errors)") }
        let mbps = report.seconds > 0 ? Double(v.bytesChecked) / 1_048_576 / report.seconds : 0
        if let unreadable = report.unreadableVersion {
            lines.append("\(file): version \(unreadable) cannot be read (a commit log frame cannot be applied); checked its checkpoint, version \(v.version): \(v.findings.count) finding(s)")
        } else {
            lines.append(report.clean
                ? "\(file): version \(v.version) is clean (\(Human.bytes(v.bytesChecked)) checked in \(Human.oneDecimal(report.seconds * 1000)) ms, \(mbps < 1e15 ? Int(mbps) : 0) MiB/s)"
                : "\(file): version \(v.version): \(v.findings.count) finding(s)")
        }
        return lines
    }
}
