/// A report's JSON document: the report's own keys and, in the same
/// object, the keys the CLI words from it (a sentence, a key spelled as
/// text) — so the document keeps the keys and values `--json` always had
/// while the report stays data.
struct JSONDocument<Report: Encodable, Rendered: Encodable>: Encodable {
    var report: Report
    var rendered: Rendered

    func encode(to encoder: any Encoder) throws {
        // Both encode into the encoder's one keyed container.
        try report.encode(to: encoder)
        try rendered.encode(to: encoder)
    }
}
