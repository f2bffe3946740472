/// The catalog maps each tree's name (UTF-8 bytes, the key) to this value.
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 20 | root page of the tree (`PageRef`, page 0 = empty tree) |
/// | 20 | 8 | number of entries in the tree |
/// | 28 | 4 | reserved, 0 |
public struct CatalogEntry: Sendable, Equatable {
    public static let size = 32

    public var root: PageRef
    public var count: UInt64

    public init(root: PageRef, count: UInt64) {
        self.root = root
        self.count = count
    }

    func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.size)
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            root.store(to: base, at: 0)
            base.storeLE(count, at: 20)
        }
        return bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> CatalogEntry? {
        guard bytes.count == size, let base = bytes.baseAddress else { return nil }
        return CatalogEntry(root: PageRef(loading: base, at: 0), count: base.le(UInt64.self, at: 20))
    }
}
