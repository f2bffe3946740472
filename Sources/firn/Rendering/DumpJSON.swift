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

        func encode(to encoder: any Encoder) throws {
            let p = page
            let entries = p.entries.map { e in
                Object([("index", e.index), ("key", ByteText.field(e.key)), ("value", e.value.map { ByteText.field($0) }),
                        ("valueLength", e.valueLength), ("overflow", e.overflow), ("child", e.child)])
            }
            try Object([
                ("path", path), ("page", p.page), ("pageSize", p.pageSize), ("kind", p.kind), ("typeByte", p.typeByte),
                ("level", p.level), ("count", p.count), ("storedPageNumber", p.storedPageNumber), ("birth", p.birth),
                ("storedChecksum", p.storedChecksum.map(DumpText.checksum)),
                ("computedChecksum", p.computedChecksum.map(DumpText.checksum)), ("checksumOK", p.checksumOK),
                ("payloadLength", p.payloadLength), ("next", p.next), ("commitRecord", p.commitRecord),
                ("slotProblem", p.slotProblem), ("usedBytes", p.usedBytes), ("entries", entries), ("problems", p.problems),
            ]).encode(to: encoder)
        }
    }

    /// A JSON object of the keys whose values are present (a nil one is
    /// left out, as a synthesized encoding leaves it out).
    struct Object: Encodable {
        var members: [(key: String, value: (any Encodable)?)]

        init(_ members: [(key: String, value: (any Encodable)?)]) { self.members = members }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for case let (key, value?) in members { try container.encode(value, forKey: Key(stringValue: key)) }
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
