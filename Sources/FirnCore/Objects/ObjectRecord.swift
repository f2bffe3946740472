/// The value of an object in its tree `obj.<Type>` (docs/FORMAT.md §12.2):
/// a versioned list of fields in ascending tag order, each tagged with its
/// property's index in the type's schema and with its stored type, so a
/// reader finds one property without decoding the others and a tool decodes
/// a record with no schema at all.
///
/// | size | field |
/// |-----:|-------|
/// | 1 | format, 1 |
/// | varint | field count `n` |
/// | n × | varint tag (strictly ascending), u8 type (0 = null, else `PropertyType`), varint length, bytes |
///
/// A property with no field reads as null (optional) or its type's default:
/// this is what lets a later schema add properties without rewriting records.
package enum ObjectRecord {
    static let format: UInt8 = 1
    /// The type code of a null field (an optional property holding nil).
    static let nullType: UInt8 = 0

    /// One field of a record: `type` nil for null; `bytes` point into the
    /// record and are valid while it is.
    package struct Field {
        package let tag: Int
        package let type: PropertyType?
        package let bytes: UnsafeRawBufferPointer
    }

    /// Encodes `fields` (tags ascending, each value already fitting its type).
    package static func encode(_ fields: [(tag: Int, type: PropertyType, value: FieldValue?)]) -> [UInt8] {
        // One buffer, sized once: each field's bytes go straight into it.
        let lengths = fields.map { field in field.value.flatMap { $0.encodedLength(as: field.type) } }
        var out: [UInt8] = []
        out.reserveCapacity(lengths.reduce(1 + ByteScanner.maxVarintLength) { $0 + 1 + 2 * ByteScanner.maxVarintLength + ($1 ?? 0) })
        out.append(format)
        out.appendVarint(UInt64(fields.count))
        for (field, length) in zip(fields, lengths) {
            out.appendVarint(UInt64(field.tag))
            if let value = field.value, let length {
                out.append(field.type.rawValue)
                out.appendVarint(UInt64(length))
                value.append(as: field.type, to: &out)
            } else {
                out.append(nullType)
                out.appendVarint(0)
            }
        }
        return out
    }

    /// Calls `body` with each field in order, after checking the format,
    /// the count, every tag, type code and length; `body` returns false to
    /// stop early. A record that fails a check throws `.corrupt`.
    package static func forEachField(
        _ record: UnsafeRawBufferPointer, _ body: (Field) throws(FirnError) -> Bool
    ) throws(FirnError) {
        var scanner = try fields(of: record)
        while let field = try nextField(&scanner) {
            guard try body(field) else { return }
        }
    }

    /// The field tagged `tag`, or nil when the record has none. Stops at
    /// the first tag past it (tags ascend), so reading an early property
    /// costs less than decoding the record. The same checks as
    /// `forEachField`, without a closure per field: this runs for every
    /// property read, first as the quick walk of `fields(_:in:into:)`,
    /// then, at a defect, as `checkedField` (which names it).
    package static func field(_ tag: Int, in record: UnsafeRawBufferPointer) throws(FirnError) -> Field? {
        var found: Field?
        var wanted = tag
        let quick = withUnsafeMutablePointer(to: &found) { out in
            withUnsafePointer(to: &wanted) { tags in
                quickFields(UnsafeBufferPointer(start: tags, count: 1), record, UnsafeMutableBufferPointer(start: out, count: 1))
            }
        }
        if quick { return found }
        return try checkedField(tag, in: record)
    }

    /// `field(_:in:)` with `nextField`'s walk alone: each check made in
    /// turn, a defect named by what it reads.
    package static func checkedField(_ tag: Int, in record: UnsafeRawBufferPointer) throws(FirnError) -> Field? {
        var scanner = try fields(of: record)
        while let field = try nextField(&scanner) {
            if field.tag >= tag { return field.tag == tag ? field : nil }
        }
        return nil
    }

    /// The fields tagged `tags` (strictly ascending) in one walk: `out[i]`
    /// is the field tagged `tags[i]`, or nil when the record has none. Every
    /// field up to the last tag asked for gets `field(_:in:)`'s checks; the
    /// walk stops there. What a query's scan reads from each record: the
    /// properties its condition and its aggregate or sort read, found at
    /// once rather than with one walk from the start for each.
    package static func fields(_ tags: UnsafeBufferPointer<Int>, in record: UnsafeRawBufferPointer,
                               into out: UnsafeMutableBufferPointer<Field?>) throws(FirnError) {
        precondition(out.count >= tags.count, "one slot per tag")
        for i in 0..<tags.count { out[i] = nil }
        guard !tags.isEmpty else { return }
        // A scan runs this for every record: first a walk on the raw bytes
        // that makes every check but names no defect; at the first one it
        // gives up, and the walk below (`nextField`'s) finds and names it.
        if quickFields(tags, record, out) { return }
        for i in 0..<tags.count { out[i] = nil }
        var scanner = try fields(of: record)
        var slot = 0
        while let field = try nextField(&scanner) {
            // Tags below this field's have no field in the record.
            while tags[slot] < field.tag {
                slot += 1
                if slot == tags.count { return }
            }
            if tags[slot] == field.tag {
                out[slot] = field
                slot += 1
                if slot == tags.count { return }
            }
        }
    }

    /// `fields(_:in:into:)` for a record without defects: the same checks
    /// (format, count, ascending tags below 2^31, known type codes, null
    /// fields empty, lengths within the record, nothing after the last
    /// field when the walk reaches it) on the raw bytes, each varint read
    /// in line; false at the first check that fails, `out` then unfinished.
    /// The type codes are 1 ... `maxTypeCode` without gaps (checked by
    /// `PropertyType`'s test), so a skipped field's code is range-checked.
    @inline(__always)
    private static func quickFields(_ tags: UnsafeBufferPointer<Int>, _ record: UnsafeRawBufferPointer,
                                    _ out: UnsafeMutableBufferPointer<Field?>) -> Bool {
        quickWalk(tags, record) { slot, tag, code, bytes in
            out[slot] = Field(tag: tag, type: code == nullType ? nil : PropertyType(rawValue: code), bytes: bytes)
        }
    }

    /// The value of the 8-byte `Int` field tagged `tag` when the quick walk
    /// (`quickFields`'s checks) reaches it without a defect; nil when it
    /// cannot say: a defect on the way, no field, a null one, another type
    /// code or length. What a scan tests in its leaf loop
    /// (`IntegerScan`): a nil sends the record to the checked read, which
    /// reads it as the schema says or names its defect.
    @inline(__always)
    package static func quickInteger(_ tag: Int, in record: UnsafeRawBufferPointer) -> Int64? {
        var wanted = tag
        var value: Int64?
        let clean = withUnsafePointer(to: &wanted) { tags in
            quickWalk(UnsafeBufferPointer(start: tags, count: 1), record) { _, _, code, bytes in
                if code == PropertyType.int.rawValue, bytes.count == 8, let base = bytes.baseAddress {
                    value = Int64(littleEndian: base.loadUnaligned(as: Int64.self))
                }
            }
        }
        return clean ? value : nil
    }

    /// The walk of `quickFields` and `quickInteger`: `found` gets the slot
    /// of each tag asked for that the record has, its type code and bytes.
    @inline(__always)
    private static func quickWalk(_ tags: UnsafeBufferPointer<Int>, _ record: UnsafeRawBufferPointer,
                                  _ found: (_ slot: Int, _ tag: Int, _ code: UInt8, _ bytes: UnsafeRawBufferPointer) -> Void) -> Bool {
        guard let base = record.baseAddress else { return false }
        let end = record.count
        guard end > 0, base.load(as: UInt8.self) == format else { return false }
        var p = 1
        guard let count = quickVarint(base, end, &p), count <= UInt64((end &- p) / 3) else { return false }
        let slots = tags.count
        var slot = 0
        var wanted = tags[0]
        var nextTag = 0
        var left = count
        while left > 0 {
            left &-= 1
            let tag: Int, code: UInt8, length: Int
            // Most fields start with a one-byte tag, the type code and a
            // one-byte length: three bytes and one bounds check.
            if end &- p >= 3, case let t = base.load(fromByteOffset: p, as: UInt8.self),
               case let l = base.load(fromByteOffset: p &+ 2, as: UInt8.self), (t | l) < 0x80 {
                tag = Int(t)
                code = base.load(fromByteOffset: p &+ 1, as: UInt8.self)
                length = Int(l)
                p &+= 3
            } else {
                guard let long = quickVarint(base, end, &p), long < UInt64(Int32.max), p < end else { return false }
                tag = Int(long)
                code = base.load(fromByteOffset: p, as: UInt8.self)
                p &+= 1
                guard let long = quickVarint(base, end, &p), long <= UInt64(end &- p) else { return false }
                length = Int(long)
            }
            guard tag >= nextTag, code <= PropertyType.maxTypeCode, length <= end &- p, code != nullType || length == 0 else {
                return false
            }
            nextTag = tag &+ 1
            if tag >= wanted {
                // Tags below this field's have no field in the record.
                while wanted < tag {
                    slot &+= 1
                    if slot == slots { return true }
                    wanted = tags[slot]
                }
                if wanted == tag {
                    found(slot, tag, code, UnsafeRawBufferPointer(start: base + p, count: length))
                    slot &+= 1
                    if slot == slots { return true }
                    wanted = tags[slot]
                }
            }
            p &+= length
        }
        return p == end
    }

    /// A varint at `p` (advanced past it), as `ByteScanner.varint` reads
    /// it; nil where that one throws.
    @inline(__always)
    private static func quickVarint(_ base: UnsafeRawPointer, _ end: Int, _ p: inout Int) -> UInt64? {
        guard p < end else { return nil }
        let first = base.load(fromByteOffset: p, as: UInt8.self)
        if first < 0x80 {
            p &+= 1
            return UInt64(first)
        }
        return quickLongVarint(base, end, &p)
    }

    private static func quickLongVarint(_ base: UnsafeRawPointer, _ end: Int, _ p: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while p < end {
            let b = base.load(fromByteOffset: p, as: UInt8.self)
            p &+= 1
            let bits = UInt64(b & 0x7F)
            if shift == 63, bits > 1 { return nil }
            result |= bits << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    /// A scanner at the first field of `record`, its format checked; the
    /// field count is kept in the scanner's walk (`nextField`).
    @inline(__always)
    private static func fields(of record: UnsafeRawBufferPointer) throws(FirnError) -> FieldScanner {
        var scanner = ByteScanner(record)
        let format = try scanner.byte("record format")
        guard format == Self.format else { throw ByteScanner.defect("unknown object record format \(format)") }
        // A field takes at least 3 bytes (tag, type, length).
        let count = try scanner.count("field count", atMost: scanner.remaining / 3)
        return FieldScanner(bytes: scanner, count: count)
    }

    /// Where a walk over a record's fields is.
    private struct FieldScanner {
        var bytes: ByteScanner
        let count: Int
        var index = 0
        /// The last field's tag: tags ascend.
        var previous: UInt64? = nil
    }

    /// The next field, every tag, type code and length checked; nil after
    /// the last (when no bytes follow it).
    @inline(__always)
    private static func nextField(_ walk: inout FieldScanner) throws(FirnError) -> Field? {
        let index = walk.index
        guard index < walk.count else {
            guard walk.bytes.isAtEnd else { throw ByteScanner.defect("\(walk.bytes.remaining) bytes after the last field") }
            return nil
        }
        walk.index += 1
        let tag = try walk.bytes.varint("field \(index) tag")
        if let previous = walk.previous, tag <= previous {
            throw ByteScanner.defect("field \(index) tag \(tag) does not follow tag \(previous)")
        }
        guard tag < UInt64(Int32.max) else { throw ByteScanner.defect("field \(index) tag \(tag) is too large") }
        walk.previous = tag
        let code = try walk.bytes.byte("field \(index) type")
        let type: PropertyType?
        if code == nullType {
            type = nil
        } else if let known = PropertyType(rawValue: code) {
            type = known
        } else {
            throw ByteScanner.defect("field \(index) has unknown type \(code)")
        }
        let length = try walk.bytes.count("field \(index) length", atMost: walk.bytes.remaining)
        if type == nil, length != 0 { throw ByteScanner.defect("null field \(index) has \(length) bytes") }
        let bytes = try walk.bytes.slice(length, "field \(index)")
        return Field(tag: Int(tag), type: type, bytes: bytes)
    }

    /// The value of the field tagged `tag` when its property has type
    /// `type`: nil when the record has no field or a null one; a field of
    /// another type is `.corrupt`.
    package static func value(_ tag: Int, as type: PropertyType, in record: UnsafeRawBufferPointer) throws(FirnError) -> FieldValue? {
        guard let field = try field(tag, in: record) else { return nil }
        return try value(of: field, as: type)
    }

    /// The value of a field found in a record (`field`, `fields`) whose
    /// property has type `type`: nil for a null field; a field of another
    /// type is `.corrupt`.
    package static func value(of field: Field, as type: PropertyType) throws(FirnError) -> FieldValue? {
        guard let stored = try checkedType(of: field, as: type) else { return nil }
        return try FieldValue.decode(field.bytes, as: stored)
    }

    /// The same for an integer property, without making a `FieldValue`
    /// (`FieldValue.decodeInteger`); nil for a null field.
    package static func integer(of field: Field, as type: PropertyType) throws(FirnError) -> Int64? {
        guard let stored = try checkedType(of: field, as: type) else { return nil }
        // `FieldValue.decode`'s widths and length check, without the enum.
        let bytes = field.bytes
        switch stored {
        case .int, .int64:
            guard bytes.count == 8, let base = bytes.baseAddress else { break }
            return base.le(Int64.self, at: 0)
        case .int32:
            guard bytes.count == 4, let base = bytes.baseAddress else { break }
            return Int64(base.le(Int32.self, at: 0))
        case .int16:
            guard bytes.count == 2, let base = bytes.baseAddress else { break }
            return Int64(base.le(Int16.self, at: 0))
        case .int8:
            guard bytes.count == 1 else { break }
            return Int64(Int8(bitPattern: bytes[0]))
        default:
            throw ByteScanner.defect("field \(field.tag) holds a \(stored), not an integer")
        }
        throw ByteScanner.defect("a \(stored) field of \(bytes.count) bytes (\(stored.fixedLength ?? 0) expected)")
    }

    @inline(__always)
    private static func checkedType(of field: Field, as type: PropertyType) throws(FirnError) -> PropertyType? {
        guard let stored = field.type else { return nil }
        guard stored == type else {
            throw ByteScanner.defect("field \(field.tag) holds a \(stored), the schema says \(type)")
        }
        return stored
    }

    /// Every field's value by tag (null fields as nil).
    package static func decodeAll(_ record: UnsafeRawBufferPointer) throws(FirnError) -> [(tag: Int, type: PropertyType?, value: FieldValue?)] {
        var out: [(tag: Int, type: PropertyType?, value: FieldValue?)] = []
        try forEachField(record) { field throws(FirnError) in
            out.append((field.tag, field.type, try field.type.map { (t) throws(FirnError) in try FieldValue.decode(field.bytes, as: t) }))
            return true
        }
        return out
    }
}
