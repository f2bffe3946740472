/// How a command shows its report: JSON, text, or nothing (`firn demo
/// --json`, whose stdout is its own report, runs the tour's steps silently).
enum ReportFormat {
    case text, json, silent

    /// Prints `note` (why the read is not pinned) on stderr, then the
    /// report as JSON or as its text lines.
    func show<Document: Encodable>(note: String? = nil, json: () -> Document, text: () -> [String]) throws {
        if let note { Console.note(note) }
        switch self {
        case .text: for line in text() { try Console.line(line) }
        case .json: try Console.json(json())
        case .silent: break
        }
    }
}
