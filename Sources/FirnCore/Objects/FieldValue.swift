/// A decoded property value. Integers of every width are carried as
/// `Int64`; the property's `PropertyType` says which width is stored.
package enum FieldValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case float(Float)
    case string(String)
    case data([UInt8])
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    /// The 16 bytes of a UUID in RFC 4122 order.
    case uuid([UInt8])
    /// A link: the target object's key (§12.3), in the target type's tree.
    case link([UInt8])
    /// A decimal number (`StoredDecimal`).
    case decimal(StoredDecimal)

    package var description: String {
        switch self {
        case let .bool(v): return String(v)
        case let .int(v): return String(v)
        case let .double(v): return String(v)
        case let .float(v): return String(v)
        case let .string(v): return "\"\(v)\""
        case let .data(v): return "<\(v.count) bytes>"
        case let .date(v): return "date(\(v))"
        case let .uuid(v): return ObjectKey.uuidString(v)
        case let .link(v): return "link(\(v.count)-byte key)"
        case let .decimal(v): return v.description
        }
    }

    /// The value's bytes in a field of type `type` (docs/FORMAT.md §12.2);
    /// nil when the value does not fit that type (a caller's bug, reported
    /// by the caller as a type mismatch).
    package func encoded(as type: PropertyType) -> [UInt8]? {
        guard let length = encodedLength(as: type) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(length)
        append(as: type, to: &out)
        return out
    }

    /// How many bytes `encoded(as:)` makes, nil when the value cannot be
    /// stored as `type` (another type, or out of the narrower range).
    package func encodedLength(as type: PropertyType) -> Int? {
        // Fixed-size types take their `PropertyType.fixedLength`.
        switch (type, self) {
        case (.bool, .bool), (.int, .int), (.int64, .int), (.double, .double), (.date, .date), (.float, .float):
            return type.fixedLength
        case let (.int32, .int(v)): return Int32(exactly: v) == nil ? nil : type.fixedLength
        case let (.int16, .int(v)): return Int16(exactly: v) == nil ? nil : type.fixedLength
        case let (.int8, .int(v)): return Int8(exactly: v) == nil ? nil : type.fixedLength
        case let (.uuid, .uuid(v)): return v.count == type.fixedLength ? type.fixedLength : nil
        case (.decimal, .decimal): return type.fixedLength
        case let (.string, .string(v)): return v.utf8.count
        case let (.data, .data(v)), let (.object, .link(v)): return v.count
        default: return nil
        }
    }

    /// Appends the bytes `encoded(as:)` makes, written in place (a record
    /// is built without a buffer per field). Only after `encodedLength(as:)`
    /// said the value can be stored as `type`; appends nothing otherwise.
    package func append(as type: PropertyType, to out: inout [UInt8]) {
        switch (type, self) {
        case let (.bool, .bool(v)): out.append(v ? 1 : 0)
        case let (.int, .int(v)), let (.int64, .int(v)): out.appendLE(v)
        case let (.int32, .int(v)): if let narrow = Int32(exactly: v) { out.appendLE(narrow) }
        case let (.int16, .int(v)): if let narrow = Int16(exactly: v) { out.appendLE(narrow) }
        case let (.int8, .int(v)): if let narrow = Int8(exactly: v) { out.appendLE(narrow) }
        case let (.double, .double(v)), let (.date, .date(v)): out.appendLE(v.bitPattern)
        case let (.float, .float(v)): out.appendLE(v.bitPattern)
        case let (.string, .string(v)): out.append(contentsOf: v.utf8)
        case let (.data, .data(v)), let (.object, .link(v)): out += v
        case let (.uuid, .uuid(v)): if v.count == type.fixedLength { out += v }
        case let (.decimal, .decimal(v)): out += v.encoded
        default: break
        }
    }

    /// Decodes a field's bytes as `type`: the length must be the type's
    /// fixed length, a Bool 0 or 1, a String valid UTF-8.
    package static func decode(_ bytes: UnsafeRawBufferPointer, as type: PropertyType) throws(FirnError) -> FieldValue {
        if let fixed = type.fixedLength, bytes.count != fixed {
            throw ByteScanner.defect("a \(type) field of \(bytes.count) bytes (\(fixed) expected)")
        }
        switch type {
        case .string:
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw ByteScanner.defect("a String field is not valid UTF-8")
            }
            return .string(text)
        case .data: return .data(Array(bytes))
        case .object: return .link(Array(bytes))
        default: break
        }
        // Fixed-width from here on: the length check above made it non-empty.
        guard let base = bytes.baseAddress else { throw ByteScanner.defect("a \(type) field without bytes") }
        switch type {
        case .bool:
            let b = bytes[0]
            guard b <= 1 else { throw ByteScanner.defect("a Bool field holds \(b)") }
            return .bool(b == 1)
        case .int, .int64: return .int(base.le(Int64.self, at: 0))
        case .int32: return .int(Int64(base.le(Int32.self, at: 0)))
        case .int16: return .int(Int64(base.le(Int16.self, at: 0)))
        case .int8: return .int(Int64(Int8(bitPattern: bytes[0])))
        case .double: return .double(Double(bitPattern: base.le(UInt64.self, at: 0)))
        case .date: return .date(Double(bitPattern: base.le(UInt64.self, at: 0)))
        case .float: return .float(Float(bitPattern: base.le(UInt32.self, at: 0)))
        case .uuid: return .uuid(Array(bytes))
        case .decimal: return .decimal(try StoredDecimal.decode(bytes))
        case .string, .data, .object: throw ByteScanner.defect("unreachable: \(type) is variable-length")
        }
    }
}
