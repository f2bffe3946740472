/// The 32-byte header at the start of every page but the two commit slots.
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 1 | page type (`PageType`) |
/// | 1 | 1 | level: 0 for leaves and overflow pages, height above the leaves for branches |
/// | 2 | 2 | entry count (branch, leaf); 0 for overflow |
/// | 4 | 4 | overflow: payload bytes in this page; otherwise 0 |
/// | 8 | 8 | the page's own number (catches misdirected writes) |
/// | 16 | 8 | birth: the version that wrote the page |
/// | 24 | 4 | reserved, 0 |
/// | 28 | 4 | CRC32C of bytes [0, 28) followed by [32, page size) |
package struct PageHeader: Sendable, Equatable {
    package static let size = 32
    static let checksumOffset = 28

    package var type: PageType
    package var level: UInt8
    package var count: UInt16
    package var payloadLength: UInt32
    package var pageNumber: UInt64
    package var birth: UInt64
    package var checksum: UInt32

    /// Decodes the header; nil when the type byte is not a known page type.
    init?(loading base: UnsafeRawPointer) {
        guard let type = PageType(rawValue: base.load(as: UInt8.self)) else { return nil }
        self.type = type
        level = base.load(fromByteOffset: 1, as: UInt8.self)
        count = base.le(UInt16.self, at: 2)
        payloadLength = base.le(UInt32.self, at: 4)
        pageNumber = base.le(UInt64.self, at: 8)
        birth = base.le(UInt64.self, at: 16)
        checksum = base.le(UInt32.self, at: 28)
    }

    /// Writes a header without its checksum (`sealPage` adds that last).
    static func write(
        to base: UnsafeMutableRawPointer, type: PageType, level: UInt8, count: UInt16,
        payloadLength: UInt32 = 0, pageNumber: UInt64, birth: UInt64
    ) {
        base.storeBytes(of: type.rawValue, as: UInt8.self)
        base.storeBytes(of: level, toByteOffset: 1, as: UInt8.self)
        base.storeLE(count, at: 2)
        base.storeLE(payloadLength, at: 4)
        base.storeLE(pageNumber, at: 8)
        base.storeLE(birth, at: 16)
        base.storeLE(UInt32(0), at: 24)
        base.storeLE(UInt32(0), at: 28)
    }

    /// The checksum of a whole page, skipping the checksum field itself.
    static func computeChecksum(_ page: UnsafeRawBufferPointer) -> UInt32 {
        let head = UnsafeRawBufferPointer(rebasing: page[0..<checksumOffset])
        let tail = UnsafeRawBufferPointer(rebasing: page[size...])
        return CRC32C.checksum(tail, continuing: CRC32C.checksum(head))
    }

    /// Computes and stores the checksum; returns it for the parent's reference.
    @discardableResult
    static func seal(_ page: UnsafeMutableRawBufferPointer) -> UInt32 {
        let crc = computeChecksum(UnsafeRawBufferPointer(page))
        page.baseAddress?.storeLE(crc, at: checksumOffset)
        return crc
    }
}

/// What a page holds.
package enum PageType: UInt8, Sendable, Codable, CustomStringConvertible {
    case branch = 1
    case leaf = 2
    case overflow = 3

    package var description: String {
        switch self {
        case .branch: "branch"
        case .leaf: "leaf"
        case .overflow: "overflow"
        }
    }
}
