/// Keys of the object trees `obj.<Type>` (docs/FORMAT.md §12.3): the primary
/// key in an encoding whose byte order is the value order, so a cursor walks
/// objects in primary-key order, or a generated id for types without one.
///
/// | key type | bytes |
/// |----------|-------|
/// | Int, Int64 / Int32 / Int16 / Int8 | 8 / 4 / 2 / 1 bytes big-endian, sign bit flipped |
/// | String | its UTF-8 bytes (at most the key limit, `pageSize / 4`) |
/// | UUID | its 16 bytes |
/// | generated id | 8 bytes big-endian, from 1 up |
package enum ObjectKey {
    /// The key of an object whose primary key property (of type `type`)
    /// holds `value`; nil when the value is not of that type.
    package static func encode(_ value: FieldValue, as type: PropertyType) -> [UInt8]? {
        var out: [UInt8] = []
        switch (type, value) {
        case let (.int, .int(v)), let (.int64, .int(v)):
            out.appendBE(UInt64(bitPattern: v) ^ (1 << 63))
        case let (.int32, .int(v)):
            guard let narrow = Int32(exactly: v) else { return nil }
            out.appendBE(UInt32(bitPattern: narrow) ^ (1 << 31))
        case let (.int16, .int(v)):
            guard let narrow = Int16(exactly: v) else { return nil }
            out.appendBE(UInt16(bitPattern: narrow) ^ (1 << 15))
        case let (.int8, .int(v)):
            guard let narrow = Int8(exactly: v) else { return nil }
            out.append(UInt8(bitPattern: narrow) ^ 0x80)
        case let (.string, .string(v)): out += Array(v.utf8)
        case let (.uuid, .uuid(v)):
            guard v.count == 16 else { return nil }
            out += v
        default: return nil
        }
        return out
    }

    /// The primary key value stored in `key` for a key property of type `type`.
    package static func decode(_ key: UnsafeRawBufferPointer, as type: PropertyType) throws(FirnError) -> FieldValue {
        func width(_ n: Int) throws(FirnError) -> UInt64 {
            guard key.count == n else { throw ByteScanner.defect("a \(type) object key of \(key.count) bytes (\(n) expected)") }
            return key.reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch type {
        case .int, .int64: return .int(Int64(bitPattern: try width(8) ^ (1 << 63)))
        case .int32: return .int(Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: try width(4)) ^ (1 << 31))))
        case .int16: return .int(Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: try width(2)) ^ (1 << 15))))
        case .int8: return .int(Int64(Int8(bitPattern: UInt8(truncatingIfNeeded: try width(1)) ^ 0x80)))
        case .string:
            guard let text = String(validating: key, as: UTF8.self) else {
                throw ByteScanner.defect("a String object key is not valid UTF-8")
            }
            return .string(text)
        case .uuid:
            guard key.count == 16 else { throw ByteScanner.defect("a UUID object key of \(key.count) bytes") }
            return .uuid(Array(key))
        default:
            throw ByteScanner.defect("a \(type) cannot be an object key")
        }
    }

    /// The key of the `id`th object of a type without a primary key.
    package static func generated(_ id: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.appendBE(id)
        return out
    }

    /// The id in a generated key; nil when `key` is not 8 bytes.
    package static func generatedID(_ key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return key.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// 8-4-4-4-12 upper-case hex, as Foundation prints a UUID.
    package static func uuidString(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { b -> String in
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
        guard hex.count == 16 else { return hex.joined() }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
