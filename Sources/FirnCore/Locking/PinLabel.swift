/// Encodes and decodes the 64-byte label field of a reader slot: UTF-8, cut
/// at the last whole character that fits (never mid-character), NUL padded.
enum PinLabel {
    static let capacity = ReaderSlotLayout.labelCapacity

    /// The label's bytes, at most `capacity`; stops at an embedded NUL.
    static func encode(_ label: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        for character in label {
            let utf8 = Array(character.utf8)
            if utf8.contains(0) { break }
            if bytes.count + utf8.count > capacity { break }
            bytes.append(contentsOf: utf8)
        }
        return bytes
    }

    /// The label stored in `field`: up to the first NUL, invalid UTF-8
    /// replaced rather than rejected (the bytes come from another process).
    static func decode(_ field: [UInt8]) -> String {
        let end = field.firstIndex(of: 0) ?? field.count
        return String(decoding: field[..<end], as: UTF8.self)
    }
}
