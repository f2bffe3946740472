/// Why a version is pinned: stored as one byte in each reader slot, shown by
/// `firn pins`, encoded in JSON by name ("read", "frozen", …).
public enum PinKind: UInt8, Codable, Sendable, CaseIterable, CustomStringConvertible {
    /// A read transaction.
    case read = 1
    /// A frozen snapshot kept alive by frozen objects.
    case frozen
    /// A reference handed to another thread.
    case threadSafeReference
    /// An export or backup in progress.
    case export
    /// A compaction in progress.
    case compact
    /// A `firn` tool command reading the database.
    case tool

    public var description: String {
        switch self {
        case .read: return "read"
        case .frozen: return "frozen"
        case .threadSafeReference: return "threadSafeReference"
        case .export: return "export"
        case .compact: return "compact"
        case .tool: return "tool"
        }
    }

    /// The kind named `name` (as in `description`), or nil.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = kind
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = PinKind(name: name) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown pin kind \"\(name)\"")
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
