/// One page of a file decoded for display (`firn dump --page N`): its
/// header, its cells, and whether its checksum holds. Decoding is lenient:
/// a damaged field becomes a `problems` line, never an error or a read
/// outside the page.
public struct InspectedPage: Codable, Sendable, Equatable {
    /// One cell of a branch or leaf page.
    public struct Entry: Codable, Sendable, Equatable {
        public var index: Int
        /// The key (a branch's separator; empty for separator 0).
        public var key: [UInt8]
        /// Leaf: the inline value, cut to `valuePreviewLimit` bytes.
        public var value: [UInt8]?
        /// Leaf: the whole value's length (inline or in an overflow chain).
        public var valueLength: UInt64?
        /// Leaf: the head of the value's overflow chain.
        public var overflow: PageRef?
        /// Branch: the child page.
        public var child: PageRef?
    }

    /// What the page holds, by its slot or type byte (encoded by name).
    public enum Kind: String, Codable, Sendable, Equatable {
        case commitSlot, branch, leaf, overflow
        /// All zero: never written, or zeroed.
        case free
        /// A type byte no page type has.
        case unknown
    }

    public static let valuePreviewLimit = 64

    public var page: UInt64
    public var pageSize: Int
    public var kind: Kind
    public var typeByte: UInt8
    public var level: Int?
    public var count: Int?
    public var storedPageNumber: UInt64?
    public var birth: UInt64?
    public var storedChecksum: UInt32?
    public var computedChecksum: UInt32?
    public var checksumOK: Bool
    /// Overflow pages: payload bytes and the next page of the chain.
    public var payloadLength: Int?
    public var next: PageRef?
    /// Commit slots: the record, or why it is not valid.
    public var commitRecord: CommitRecord?
    public var slotProblem: String?
    /// Bytes the header, offset table and cells occupy.
    public var usedBytes: Int?
    public var entries: [Entry]
    public var problems: [String]
}
