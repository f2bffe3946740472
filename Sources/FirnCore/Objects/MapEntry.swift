/// The value of a map's list tree entry (docs/FORMAT.md §12.4): a map
/// (the SDK's `Map<String, V>`) is a list property with the map flag whose
/// elements are (key, value) pairs, kept in increasing byte order of their
/// keys so that a lookup is a binary search over positions.
///
/// | size | field |
/// |-----:|-------|
/// | varint | key length `n` |
/// | n | the key, UTF-8 |
/// | rest | the value, as a list element (`ListElement`: type code, then the field) |
///
/// The value part is exactly a list element, so every rule about list
/// elements (types, nulls, links to existing objects) holds for it.
package enum MapEntry {
    package static func encode(key: String, element: [UInt8]) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(keyBytes.count + element.count + 2)
        out.appendVarint(UInt64(keyBytes.count))
        out += keyBytes
        out += element
        return out
    }

    /// The key's bytes and the value's list element bytes of an entry;
    /// `.corrupt` when the key's length does not fit or its bytes are not UTF-8.
    package static func split(_ bytes: UnsafeRawBufferPointer) throws(FirnError) -> (key: UnsafeRawBufferPointer, element: UnsafeRawBufferPointer) {
        var scanner = ByteScanner(bytes)
        let length = try scanner.count("map key length", atMost: bytes.count)
        let key = try scanner.slice(length, "map key")
        guard String(validating: key, as: UTF8.self) != nil else {
            throw ByteScanner.defect("a map key of \(length) bytes is not UTF-8")
        }
        let element = try scanner.slice(scanner.remaining, "map value")
        return (key, element)
    }

    /// The key of an entry, as a string.
    package static func key(_ bytes: UnsafeRawBufferPointer) throws(FirnError) -> String {
        let key = try split(bytes).key
        return String(decoding: key, as: UTF8.self)
    }

    /// The key and value of an entry of a map whose values have type `type`.
    package static func decode(_ bytes: UnsafeRawBufferPointer, as type: PropertyType) throws(FirnError) -> (key: String, value: FieldValue?) {
        let (key, element) = try split(bytes)
        return (String(decoding: key, as: UTF8.self), try ListElement.decode(element, as: type))
    }
}

extension ListElement {
    /// The element in a list tree value of `property`: for a map, the value
    /// of its (key, value) entry (`MapEntry`), else the whole value.
    package static func decode(_ bytes: UnsafeRawBufferPointer, of property: PropertySchema) throws(FirnError) -> FieldValue? {
        guard property.isMap else { return try decode(bytes, as: property.type) }
        return try decode(try MapEntry.split(bytes).element, as: property.type)
    }
}
