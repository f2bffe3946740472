/// The catalog maps each tree's name (UTF-8 bytes, the key) to this value.
/// A name is 1 to `maxKeyLength` bytes of valid UTF-8 (`name(_:geometry:)`).
///
/// | offset | size | field |
/// |-------:|-----:|-------|
/// | 0 | 20 | root page of the tree (`PageRef`, page 0 = empty tree) |
/// | 20 | 8 | number of entries in the tree |
/// | 28 | 4 | reserved, 0 |
public struct CatalogEntry: Sendable, Equatable {
    package static let size = 32

    public var root: PageRef
    public var count: UInt64

    package init(root: PageRef, count: UInt64) {
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

    /// Why a catalog key is not a tree name.
    enum NameDefect: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong(length: Int, limit: Int)
        case notUTF8

        var description: String {
            switch self {
            case .empty: "tree name is empty (expected 1 to the key limit bytes of UTF-8)"
            case let .tooLong(length, limit): "tree name of \(length) bytes is longer than the key limit of \(limit)"
            case .notUTF8: "tree name is not valid UTF-8"
            }
        }
    }

    /// The tree name a catalog key spells, or why it spells none. Names are
    /// never repaired (a repaired name would be another tree's).
    static func name(_ key: UnsafeRawBufferPointer, geometry: PageGeometry) -> Result<String, NameDefect> {
        if key.isEmpty { return .failure(.empty) }
        if key.count > geometry.maxKeyLength { return .failure(.tooLong(length: key.count, limit: geometry.maxKeyLength)) }
        guard let name = String(validating: key, as: UTF8.self) else { return .failure(.notUTF8) }
        return .success(name)
    }

    /// A key for messages: its text when it is UTF-8, else its bytes in hex.
    static func describe(_ key: UnsafeRawBufferPointer) -> String {
        if let text = String(validating: key, as: UTF8.self) { return "\"\(text)\"" }
        return "x" + key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> CatalogEntry? {
        guard bytes.count == size, let base = bytes.baseAddress else { return nil }
        return CatalogEntry(root: PageRef(loading: base, at: 0), count: base.le(UInt64.self, at: 20))
    }
}
