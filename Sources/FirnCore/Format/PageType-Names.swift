/// A page type by name ("branch", "leaf", "overflow"), as reports spell it
/// and encode it in JSON (as `PinKind` encodes a pin's kind).
extension PageType {
    /// The type named `name` (as in `description`), or nil.
    package init?(name: String) {
        guard let type = [PageType.branch, .leaf, .overflow].first(where: { $0.description == name }) else { return nil }
        self = type
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let type = PageType(name: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown page type \"\(name)\"")
        }
        self = type
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
