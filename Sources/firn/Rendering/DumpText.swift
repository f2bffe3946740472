import FirnCore
import FirnTools

/// `firn dump`'s text: the trees' levels, a line per page, one decoded
/// page. Keys show as `ByteText` fields, cut to 40 characters in the tables.
enum DumpText {
    static func structure(_ report: Dump.Report<Dump.Tree>, file: String) -> [String] {
        var lines = ["\(file): version \(report.version), page size \(report.pageSize)"]
        for t in report.rows {
            lines.append("tree \(t.kind.label(t.name)): \(Human.grouped(t.entries)) entries, depth \(t.depth)\(t.overflowPages > 0 ? ", \(t.overflowPages) overflow pages" : "")")
            if let first = t.firstKey { lines.append("  keys \(ByteText.short(first)) … \(t.lastKey.map { ByteText.short($0) } ?? "")") }
            for level in t.levels {
                lines.append("  level \(level.level) \(level.level == 0 ? "(leaves)  " : "(branches)"): \(Human.grouped(level.pages)) pages, \(Human.grouped(level.cells)) cells, \(Human.oneDecimal(level.fillPercent))% full")
            }
        }
        return lines
    }

    static func pages(_ report: Dump.Report<Dump.Page>) -> [String] {
        var lines = ["PAGE      TREE             TYPE      LEVEL COUNT  FILL    BIRTH   FIRST KEY … LAST KEY"]
        for p in report.rows {
            let keys = p.firstKey.map { "\(ByteText.short($0)) … \(p.lastKey.map { ByteText.short($0) } ?? "")" } ?? ""
            lines.append("\(String(p.page).padding(9)) \(p.treeKind.label(p.tree).padding(16)) \(p.type.description.padding(9)) \(String(p.level).padding(5)) \(String(p.count).padding(6)) \((Human.oneDecimal(p.fillPercent) + "%").padding(7)) \(String(p.birth).padding(7)) \(keys)")
        }
        return lines
    }

    static func page(_ p: InspectedPage, file: String) -> [String] {
        let type = p.kind == .commitSlot ? "" : " (type byte \(p.typeByte))"
        var lines = ["page \(p.page) of \(file): \(p.kind.rawValue)\(type), checksum \(p.checksumOK ? "ok" : "BAD")"]
        if let record = p.commitRecord {
            lines.append("  commit record: version \(record.version), page size \(record.pageSize), \(record.logicalPageCount) pages, committed \(Units.iso8601(nanoseconds: record.timestampNanoseconds))")
            lines.append("  catalog root \(record.catalogRoot), space root \(record.spaceRoot)")
            lines.append("  free pages \(record.freePages), retired pages \(record.retiredPages), bytes written \(record.bytesWritten)")
        }
        if let problem = p.slotProblem { lines.append("  slot: \(problem)") }
        if let level = p.level, let count = p.count {
            lines.append("  level \(level), \(count) entries, self page \(p.storedPageNumber ?? 0), birth \(p.birth ?? 0), used \(p.usedBytes ?? 0) of \(p.pageSize) bytes")
            lines.append("  checksum stored \(p.storedChecksum.map(checksum) ?? "?"), computed \(p.computedChecksum.map(checksum) ?? "?")")
        }
        if let length = p.payloadLength { lines.append("  overflow payload \(length) bytes, next \(p.next?.description ?? "none")") }
        for e in p.entries {
            let key = ByteText.field(e.key)
            if let child = e.child {
                lines.append("  [\(e.index)] \(e.index == 0 ? "(lowest)" : key) → \(child)")
            } else if let overflow = e.overflow {
                lines.append("  [\(e.index)] \(key) = \(e.valueLength ?? 0) bytes in overflow chain at \(overflow)")
            } else {
                lines.append("  [\(e.index)] \(key) = \(e.value.map { ByteText.field($0) } ?? "")\((e.valueLength ?? 0) > UInt64(64) ? " … (\(e.valueLength ?? 0) bytes)" : "")")
            }
        }
        for problem in p.problems { lines.append("  problem: \(problem)") }
        return lines
    }

    /// What `--entries` wrote (a note on stderr with progress shown).
    static func count(_ summary: Dump.EntriesSummary) -> String {
        "\(Human.grouped(summary.entries)) entries from \(summary.trees) tree(s) of version \(summary.version)"
    }

    /// A page checksum as `dump --page` shows it: "0x" and 8 hex digits.
    static func checksum(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
