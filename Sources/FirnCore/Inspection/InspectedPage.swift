/// One page of a file decoded for display (`firn dump --page N`): its
/// header, its cells, and whether its checksum holds. Decoding is lenient:
/// a damaged field becomes a `problems` line, never an error or a read
/// outside the page.
package struct InspectedPage: Codable, Sendable, Equatable {
    /// One cell of a branch or leaf page.
    package struct Entry: Codable, Sendable, Equatable {
        package var index: Int
        /// The key (a branch's separator; empty for separator 0).
        package var key: [UInt8]
        /// Leaf: the inline value, cut to `valuePreviewLimit` bytes.
        package var value: [UInt8]?
        /// Leaf: the whole value's length (inline or in an overflow chain).
        package var valueLength: UInt64?
        /// Leaf: the head of the value's overflow chain.
        package var overflow: PageRef?
        /// Branch: the child page.
        package var child: PageRef?
    }

    /// What the page holds, by its slot or type byte (encoded by name).
    package enum Kind: String, Codable, Sendable, Equatable {
        case commitSlot, branch, leaf, overflow
        /// All zero: never written, or zeroed.
        case free
        /// A type byte no page type has.
        case unknown
    }

    package static let valuePreviewLimit = 64

    package var page: UInt64
    package var pageSize: Int
    package var kind: Kind
    package var typeByte: UInt8
    package var level: Int?
    package var count: Int?
    package var storedPageNumber: UInt64?
    package var birth: UInt64?
    package var storedChecksum: UInt32?
    package var computedChecksum: UInt32?
    package var checksumOK: Bool
    /// Overflow pages: payload bytes and the next page of the chain.
    package var payloadLength: Int?
    package var next: PageRef?
    /// Commit slots: the record, or why it is not valid.
    package var commitRecord: CommitRecord?
    package var slotProblem: String?
    /// Bytes the header, offset table and cells occupy.
    package var usedBytes: Int?
    package var entries: [Entry]
    package var problems: [String]
}
