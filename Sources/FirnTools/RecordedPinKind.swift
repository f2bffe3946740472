import FirnCore

/// A pin's kind as its reader slot records it: a `PinKind`, or a kind byte
/// no `PinKind` has (written by a newer Firn, or damaged). Encoded as the
/// kind's name ("frozen", as `PinKind` encodes), or "unknown(N)" for byte N.
package enum RecordedPinKind: Codable, Sendable, Equatable, CustomStringConvertible {
    case known(PinKind)
    case unknown(UInt8)

    /// The kind of `pin`'s slot.
    package init(_ pin: PinRecord) {
        self = pin.kind.map(Self.known) ?? .unknown(pin.rawKind)
    }

    package var description: String {
        switch self {
        case let .known(kind): kind.description
        case let .unknown(byte): "unknown(\(byte))"
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        if let kind = PinKind(name: name) {
            self = .known(kind)
        } else if name.hasPrefix("unknown("), name.hasSuffix(")"), let byte = UInt8(name.dropFirst(8).dropLast()) {
            self = .unknown(byte)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown pin kind \"\(name)\"")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
