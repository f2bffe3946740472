/// Keys of a list tree `list.<Type>.<property>` (docs/FORMAT.md §12.4): the
/// owner's object key behind its length, then the element's position, so
/// one owner's elements are one contiguous run in position order and
/// appending writes one small entry instead of rewriting the list.
///
/// | size | field |
/// |-----:|-------|
/// | 2 | owner key length `k`, u16 big-endian |
/// | k | the owner's object key (§12.3) |
/// | 4 | position, u32 big-endian; one owner's positions are exactly 0 ..< count |
///
/// The length in front makes owner prefixes prefix-free: the run of owner
/// "ab" never interleaves with that of owner "abc".
package enum ListKey {
    /// The largest number of elements one list holds (positions are u32).
    package static let maximumCount = Int(UInt32.max)

    /// The bytes every key of `owner`'s elements starts with.
    package static func prefix(_ owner: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(owner.count + 6)
        out.appendBE(UInt16(truncatingIfNeeded: owner.count))
        out += owner
        return out
    }

    /// The key of `owner`'s element at `position`; `owner` is at most the
    /// key limit, which is below 2¹⁶ bytes.
    package static func key(_ owner: [UInt8], _ position: Int) -> [UInt8] {
        key(prefix: prefix(owner), position)
    }

    package static func key(prefix: [UInt8], _ position: Int) -> [UInt8] {
        var out = prefix
        out.appendBE(UInt32(truncatingIfNeeded: position))
        return out
    }

    /// The owner key and position of a list tree key; `.corrupt` when the
    /// lengths do not add up.
    package static func decode(_ key: UnsafeRawBufferPointer) throws(FirnError) -> (owner: UnsafeRawBufferPointer, position: Int) {
        guard key.count >= 6 else { throw ByteScanner.defect("a list key of \(key.count) bytes (at least 6 expected)") }
        let length = Int(key[0]) << 8 | Int(key[1])
        guard key.count == 2 + length + 4 else {
            throw ByteScanner.defect("a list key of \(key.count) bytes names an owner key of \(length) bytes")
        }
        let position = key[(2 + length)...].reduce(0) { $0 << 8 | Int($1) }
        return (UnsafeRawBufferPointer(rebasing: key[2..<(2 + length)]), position)
    }

    /// The position in `key` when it starts with `prefix`, else nil.
    package static func position(_ key: UnsafeRawBufferPointer, prefix: [UInt8]) -> Int? {
        guard key.count == prefix.count + 4, key.starts(with: prefix) else { return nil }
        return key[prefix.count...].reduce(0) { $0 << 8 | Int($1) }
    }
}

/// The value of a list tree entry (docs/FORMAT.md §12.4): one element.
///
/// | size | field |
/// |-----:|-------|
/// | 1 | type: 0 = null (lists of optionals only), else the property's type code (§12.2) |
/// | rest | the element's bytes, as a field of that type (§12.2); for type 13 the target's object key |
package enum ListElement {
    package static func encode(_ value: FieldValue?, as type: PropertyType) -> [UInt8]? {
        guard let value else { return [ObjectRecord.nullType] }
        guard let bytes = value.encoded(as: type) else { return nil }
        return [type.rawValue] + bytes
    }

    /// The element in `bytes` for a list whose elements have type `type`:
    /// nil for null; another type code, or a length the type does not
    /// allow, is `.corrupt`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, as type: PropertyType) throws(FirnError) -> FieldValue? {
        guard let code = bytes.first else { throw ByteScanner.defect("an empty list element") }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[1...])
        if code == ObjectRecord.nullType {
            guard rest.isEmpty else { throw ByteScanner.defect("a null list element has \(rest.count) bytes") }
            return nil
        }
        guard code == type.rawValue else { throw ByteScanner.defect("a list element of type \(code), the schema says \(type)") }
        return try FieldValue.decode(rest, as: type)
    }
}
