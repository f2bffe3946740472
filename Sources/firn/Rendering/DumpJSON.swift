import FirnCore
import FirnTools

/// `firn dump --json`: the reports with their keys spelled as `ByteText`
/// fields (cut to 40 characters in the trees' and pages' rows), a decoded
/// page, and with `--entries` one JSON object per entry.
enum DumpJSON {
    static func structure(_ report: Dump.Report<Dump.Tree>) -> some Encodable {
        struct Trees: Encodable { var trees: [JSONDocument<Dump.Tree, KeyRange>] }
        return JSONDocument(report: report, rendered: Trees(trees: report.rows.map {
            JSONDocument(report: $0, rendered: KeyRange(first: $0.firstKey, last: $0.lastKey))
        }))
    }

    static func pages(_ report: Dump.Report<Dump.Page>) -> some Encodable {
        struct Pages: Encodable { var pages: [JSONDocument<Dump.Page, KeyRange>] }
        return JSONDocument(report: report, rendered: Pages(pages: report.rows.map {
            JSONDocument(report: $0, rendered: KeyRange(first: $0.firstKey, last: $0.lastKey))
        }))
    }

    /// A row's first and last key, cut to 40 characters.
    struct KeyRange: Encodable {
        var firstKey: String?
        var lastKey: String?

        init(first: [UInt8]?, last: [UInt8]?) {
            firstKey = first.map { ByteText.short($0) }
            lastKey = last.map { ByteText.short($0) }
        }
    }

    /// `dump --page N --json`: the page as `InspectedPage` holds it, with
    /// the file's path, keys and values as fields, checksums as "0x…".
    struct Page: Encodable {
        var path: String
        var page: InspectedPage

        enum Key: String, CodingKey {
            case path, page, pageSize, kind, typeByte, level, count, storedPageNumber, birth, storedChecksum, computedChecksum,
                 checksumOK, payloadLength, next, commitRecord, slotProblem, usedBytes, entries, problems
            case index, key, value, valueLength, overflow, child
        }

        func encode(to encoder: any Encoder) throws {
            let p = page
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(path, forKey: .path)
            try c.encode(p.page, forKey: .page)
            try c.encode(p.pageSize, forKey: .pageSize)
            try c.encode(p.kind, forKey: .kind)
            try c.encode(p.typeByte, forKey: .typeByte)
            try c.encodeIfPresent(p.level, forKey: .level)
            try c.encodeIfPresent(p.count, forKey: .count)
            try c.encodeIfPresent(p.storedPageNumber, forKey: .storedPageNumber)
            try c.encodeIfPresent(p.birth, forKey: .birth)
            try c.encodeIfPresent(p.storedChecksum.map(DumpText.checksum), forKey: .storedChecksum)
            try c.encodeIfPresent(p.computedChecksum.map(DumpText.checksum), forKey: .computedChecksum)
            try c.encode(p.checksumOK, forKey: .checksumOK)
            try c.encodeIfPresent(p.payloadLength, forKey: .payloadLength)
            try c.encodeIfPresent(p.next, forKey: .next)
            try c.encodeIfPresent(p.commitRecord, forKey: .commitRecord)
            try c.encodeIfPresent(p.slotProblem, forKey: .slotProblem)
            try c.encodeIfPresent(p.usedBytes, forKey: .usedBytes)
            var entries = c.nestedUnkeyedContainer(forKey: .entries)
            for e in p.entries {
                var entry = entries.nestedContainer(keyedBy: Key.self)
                try entry.encode(e.index, forKey: .index)
                try entry.encode(ByteText.field(e.key), forKey: .key)
                try entry.encodeIfPresent(e.value.map { ByteText.field($0) }, forKey: .value)
                try entry.encodeIfPresent(e.valueLength, forKey: .valueLength)
                try entry.encodeIfPresent(e.overflow, forKey: .overflow)
                try entry.encodeIfPresent(e.child, forKey: .child)
            }
            try c.encode(p.problems, forKey: .problems)
        }
    }

    /// One line of `dump --entries --json`: `{"tree":…,"key":…,"value":…}`,
    /// key and value as fields (hex with `hex`); a tree without entries as `{"tree":…}`.
    static func entry(_ line: EntryCodec.Line, hex: Bool) -> String {
        switch line {
        case let .emptyTree(name): "{\"tree\":\(JSONText.quoted(name))}"
        case let .entry(e):
            "{\"tree\":\(JSONText.quoted(e.tree)),\"key\":\(JSONText.quoted(ByteText.field(e.key, hex: hex))),"
                + "\"value\":\(JSONText.quoted(ByteText.field(e.value, hex: hex)))}"
        }
    }
}
