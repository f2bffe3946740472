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
    /// property read.
    package static func field(_ tag: Int, in record: UnsafeRawBufferPointer) throws(FirnError) -> Field? {
        var scanner = try fields(of: record)
        while let field = try nextField(&scanner) {
            if field.tag >= tag { return field.tag == tag ? field : nil }
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
        guard let field = try field(tag, in: record), let stored = field.type else { return nil }
        guard stored == type else {
            throw ByteScanner.defect("field \(tag) holds a \(stored), the schema says \(type)")
        }
        return try FieldValue.decode(field.bytes, as: type)
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
