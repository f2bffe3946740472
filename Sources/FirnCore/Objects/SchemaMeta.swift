/// The metadata tree `sys.meta` (docs/FORMAT.md §12.6): the schema version
/// the file's schemas were written with, and, per type without a primary
/// key, the next generated object key (a high-water mark, so a deleted
/// object's key is never given to another object).
///
/// | key | value |
/// |-----|-------|
/// | `schemaVersion` | u64 little-endian |
/// | `nextKey.<Type>` | u64 little-endian, at least 1 and above every generated key of `obj.<Type>` |
///
/// It is kept apart from `sys.schema`, whose every entry is a type's schema.
package enum SchemaMeta {
    package static let treeName = "sys.meta"
    package static let schemaVersionKey: [UInt8] = Array("schemaVersion".utf8)
    static let nextKeyPrefix = "nextKey."

    /// The key of type `type`'s next generated key.
    package static func nextKeyKey(_ type: String) -> [UInt8] { Array((nextKeyPrefix + type).utf8) }

    /// The type named by a `nextKey.<Type>` key, nil for other keys.
    package static func nextKeyType(_ key: [UInt8]) -> String? {
        guard let text = String(validating: key, as: UTF8.self), text.hasPrefix(nextKeyPrefix) else { return nil }
        let name = String(text.dropFirst(nextKeyPrefix.count))
        return name.isEmpty ? nil : name
    }

    package static func encode(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.appendLE(value)
        return out
    }

    /// The value of entry `key` (named in the error): exactly 8 bytes.
    package static func decode(_ bytes: [UInt8], key: String) throws(FirnError) -> UInt64 {
        guard bytes.count == 8 else {
            throw ByteScanner.defect("\(treeName) entry \(key) holds \(bytes.count) bytes (8 expected)")
        }
        return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
