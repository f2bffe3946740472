/// A reference to a page: where it is, which version wrote it, and its
/// checksum. Every pointer in a Firn file is one of these, so a version is a
/// Merkle tree rooted in its commit slot: a lost, stale or misdirected write
/// anywhere below is caught by the reference that points at it.
///
/// Layout (20 bytes, little-endian):
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 8 | page number (0 = no page) |
/// | 8 | 8 | birth version of the page |
/// | 16 | 4 | CRC32C of the page (see `PageHeader`) |
public struct PageRef: Hashable, Sendable, Codable, CustomStringConvertible {
    package static let size = 20
    package static let none = PageRef(page: 0, birth: 0, checksum: 0)

    public var page: UInt64
    public var birth: UInt64
    public var checksum: UInt32

    package init(page: UInt64, birth: UInt64, checksum: UInt32) {
        self.page = page
        self.birth = birth
        self.checksum = checksum
    }

    public var isNone: Bool { page == 0 }

    init(loading base: UnsafeRawPointer, at offset: Int) {
        page = base.le(UInt64.self, at: offset)
        birth = base.le(UInt64.self, at: offset + 8)
        checksum = base.le(UInt32.self, at: offset + 16)
    }

    func store(to base: UnsafeMutableRawPointer, at offset: Int) {
        base.storeLE(page, at: offset)
        base.storeLE(birth, at: offset + 8)
        base.storeLE(checksum, at: offset + 16)
    }

    public var description: String {
        isNone ? "none" : "page \(page) (birth \(birth), crc \(String(checksum, radix: 16)))"
    }
}
