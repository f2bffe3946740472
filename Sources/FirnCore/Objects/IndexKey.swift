/// Keys of an index tree `idx.<Type>.<property>` (docs/FORMAT.md §12.5):
/// the property's value in an order-preserving, self-delimiting encoding,
/// then the object's key. Equal values form one contiguous run, in object
/// key order; the value of an index entry is empty.
///
/// | size | field |
/// |-----:|-------|
/// | 1 | 0 = null (optional properties), 1 = a value follows |
/// | … | the value: Bool 1 byte (0 or 1); Int and Int8…Int64 as object keys (§12.3); Date 8 bytes big-endian of its binary64 bits, all bits flipped when negative, else the sign bit set (−0 as +0); UUID 16 bytes; String: its UTF-8 bytes with each 0x00 written 0x00 0xFF, cut at a scalar boundary to at most 256 encoded bytes, then 0x00 0x01 (whole) or 0x00 0x02 (cut) |
/// | rest | the object's key (§12.3) |
///
/// A cut string's entry names every object whose value starts with the
/// kept prefix: lookups read the record to confirm.
package enum IndexKey {
    /// The most encoded bytes of a String value kept in an index key.
    package static let stringBudget = 256

    /// The bytes every index key of `value` starts with (the value's
    /// encoding); nil when `value` is not of type `type`.
    package static func prefix(_ value: FieldValue?, as type: PropertyType) -> [UInt8]? {
        guard let value else { return [0] }
        var out: [UInt8] = [1]
        switch (type, value) {
        case let (.bool, .bool(v)): out.append(v ? 1 : 0)
        case (.int, _), (.int8, _), (.int16, _), (.int32, _), (.int64, _), (.uuid, _):
            guard let key = ObjectKey.encode(value, as: type) else { return nil }
            out += key
        case let (.date, .date(v)):
            let bits = (v == 0 ? 0.0 : v).bitPattern
            out.appendBE(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
        case let (.string, .string(v)):
            var kept = 0
            var cut = false
            for scalar in v.unicodeScalars {
                let utf8 = Array(String(scalar).utf8)
                let size = utf8.count + (utf8.first == 0 ? 1 : 0)
                guard kept + size <= stringBudget else {
                    cut = true
                    break
                }
                for byte in utf8 {
                    out.append(byte)
                    if byte == 0 { out.append(0xFF) }
                }
                kept += size
            }
            out += [0, cut ? 2 : 1]
        default: return nil
        }
        return out
    }

    /// The full key of the entry for `objectKey` holding `value`.
    package static func key(_ value: FieldValue?, as type: PropertyType, objectKey: [UInt8]) -> [UInt8]? {
        prefix(value, as: type).map { $0 + objectKey }
    }

    /// The length of the value part of `key` (where the object key starts),
    /// checking the encoding; `.corrupt` when it is not one of `type`.
    package static func valueLength(_ key: UnsafeRawBufferPointer, as type: PropertyType) throws(FirnError) -> Int {
        guard let tag = key.first, tag <= 1 else { throw ByteScanner.defect("an index key without a 0 or 1 tag") }
        if tag == 0 { return 1 }
        let width: Int?
        switch type {
        case .bool, .int8: width = 1
        case .int16: width = 2
        case .int32: width = 4
        case .int, .int64, .date: width = 8
        case .uuid: width = 16
        case .string: width = nil
        case .double, .float, .data, .object, .decimal: throw ByteScanner.defect("a \(type) property cannot be indexed")
        }
        if let width {
            guard key.count >= 1 + width else { throw ByteScanner.defect("an index key shorter than its \(type) value") }
            if type == .bool, key[1] > 1 { throw ByteScanner.defect("an index key holds Bool \(key[1])") }
            return 1 + width
        }
        var offset = 1
        while offset + 1 < key.count {
            if key[offset] == 0 {
                switch key[offset + 1] {
                case 1, 2: return offset + 2
                case 0xFF: offset += 2
                default: throw ByteScanner.defect("an index key's String value has the escape 0x00 \(key[offset + 1])")
                }
            } else {
                offset += 1
            }
        }
        throw ByteScanner.defect("an index key's String value has no terminator")
    }
}
