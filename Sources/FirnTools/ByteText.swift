/// How keys and values are shown to people: quoted text when the bytes are
/// printable UTF-8, hex otherwise. The entries format (`EntryCodec`) uses
/// the same two spellings, so what `dump` shows can be pasted into `load`.
package enum ByteText {
    /// `"alice"` or `x00ff10` (`hex` forces the latter).
    package static func field(_ bytes: some Collection<UInt8>, hex: Bool = false) -> String {
        if !hex, let text = quotedIfPrintable(bytes) { return text }
        return "x" + hexString(bytes)
    }

    /// Short form for tables: fields longer than `limit` characters are cut with "…".
    package static func short(_ bytes: some Collection<UInt8>, limit: Int = 40) -> String {
        let full = field(bytes)
        guard full.count > limit else { return full }
        return String(full.prefix(limit - 1)) + "…"
    }

    package static func hexString(_ bytes: some Collection<UInt8>) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return out
    }

    /// `"…"` with `\\`, `\"`, `\t`, `\n`, `\r` and `\xHH` escapes, when the
    /// bytes are valid UTF-8 made mostly of printable characters.
    static func quotedIfPrintable(_ bytes: some Collection<UInt8>) -> String? {
        guard let text = String(validating: Array(bytes), as: UTF8.self) else { return nil }
        let (out, escaped) = quoted(text) { "\\x" + hexString([$0]) }
        // Mostly control bytes: hex reads better.
        if escaped * 4 > max(1, text.unicodeScalars.count) { return nil }
        return out
    }

    /// `text` in double quotes with `\\`, `\"`, `\t`, `\n` and `\r`
    /// escaped, and every other control character and DEL spelled by
    /// `control` (`\xHH` here; a JSON string literal's `\u00HH`); also how
    /// many `control` spelled.
    package static func quoted(_ text: String, control: (UInt8) -> String) -> (text: String, controls: Int) {
        var out = "\""
        var controls = 0
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    controls += 1
                    out += control(UInt8(scalar.value))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return (out + "\"", controls)
    }

    /// Parses a field written by `field`: `"…"` with escapes, or `x` + hex.
    package static func parse(_ text: Substring) -> [UInt8]? {
        if text.first == "x" {
            let digits = Array(text.utf8.dropFirst())
            guard digits.count % 2 == 0 else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(digits.count / 2)
            var i = 0
            while i < digits.count {
                guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
                out.append(hi << 4 | lo)
                i += 2
            }
            return out
        }
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "\""), utf8.last == UInt8(ascii: "\"") else { return nil }
        var out: [UInt8] = []
        var i = 1
        let end = utf8.count - 1
        while i < end {
            let b = utf8[i]
            if b != UInt8(ascii: "\\") {
                out.append(b)
                i += 1
                continue
            }
            guard i + 1 < end else { return nil }
            switch utf8[i + 1] {
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "x"):
                guard i + 3 < end, let hi = nibble(utf8[i + 2]), let lo = nibble(utf8[i + 3]) else { return nil }
                out.append(hi << 4 | lo)
                i += 4
                continue
            default: return nil
            }
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
