/// A decimal number as object records store it (property type 14,
/// docs/FORMAT.md §12.2): (−1)^negative × mantissa × 10^exponent, with the
/// range of Foundation's `Decimal` (a 128-bit mantissa, an 8-bit exponent),
/// or NaN. Each value has exactly one encoding (trailing zeros of the
/// mantissa are moved into the exponent), so equal values have equal bytes.
///
/// | offset | size | field | valid values |
/// |-------:|-----:|-------|-------|
/// | 0 | 1 | exponent, two's complement | any; 0 for zero and NaN |
/// | 1 | 1 | flags: bit 0 negative, bit 1 NaN | 0, 1 or 2; 0 for zero |
/// | 2 | 16 | mantissa, unsigned, little-endian | 0 for NaN; not a multiple of 10 unless 0 or the exponent is 127 |
package struct StoredDecimal: Sendable, Hashable, CustomStringConvertible {
    package let exponent: Int8
    package let isNegative: Bool
    package let isNaN: Bool
    package let mantissa: UInt128

    package static let length = 18
    package static let nan = StoredDecimal(exponent: 0, isNegative: false, isNaN: true, mantissa: 0)

    private init(exponent: Int8, isNegative: Bool, isNaN: Bool, mantissa: UInt128) {
        self.exponent = exponent
        self.isNegative = isNegative
        self.isNaN = isNaN
        self.mantissa = mantissa
    }

    /// The value (−1)^negative × mantissa × 10^exponent in its one
    /// encoding: zero is positive with exponent 0, trailing zeros of the
    /// mantissa go into the exponent while it stays within Int8.
    package init(isNegative: Bool, exponent: Int8, mantissa: UInt128) {
        guard mantissa != 0 else {
            self.init(exponent: 0, isNegative: false, isNaN: false, mantissa: 0)
            return
        }
        var mantissa = mantissa, exponent = exponent
        while mantissa % 10 == 0, exponent < Int8.max {
            mantissa /= 10
            exponent += 1
        }
        self.init(exponent: exponent, isNegative: isNegative, isNaN: false, mantissa: mantissa)
    }

    package var encoded: [UInt8] {
        var out: [UInt8] = [UInt8(bitPattern: exponent), (isNegative ? 1 : 0) | (isNaN ? 2 : 0)]
        out.appendLE(UInt64(truncatingIfNeeded: mantissa))
        out.appendLE(UInt64(truncatingIfNeeded: mantissa >> 64))
        return out
    }

    /// Decodes the 18 bytes of a Decimal field; any other encoding is a defect.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(FirnError) -> StoredDecimal {
        guard bytes.count == length, let base = bytes.baseAddress else {
            throw ByteScanner.defect("a Decimal field of \(bytes.count) bytes (\(length) expected)")
        }
        let exponent = Int8(bitPattern: bytes[0]), flags = bytes[1]
        let mantissa = UInt128(base.le(UInt64.self, at: 2)) | UInt128(base.le(UInt64.self, at: 10)) << 64
        guard flags <= 2 else { throw ByteScanner.defect("a Decimal field with flags \(flags) (0, 1 or 2 expected)") }
        if flags == 2 {
            guard exponent == 0, mantissa == 0 else { throw ByteScanner.defect("a Decimal NaN with an exponent or a mantissa") }
            return .nan
        }
        if mantissa == 0 {
            guard flags == 0, exponent == 0 else { throw ByteScanner.defect("a Decimal zero with a sign or an exponent") }
        } else if mantissa % 10 == 0, exponent != Int8.max {
            throw ByteScanner.defect("a Decimal mantissa with a trailing zero (not its one encoding)")
        }
        return StoredDecimal(exponent: exponent, isNegative: flags == 1, isNaN: false, mantissa: mantissa)
    }

    /// Plain decimal notation, as Foundation prints a `Decimal`: `-1.25`,
    /// `0.001`, `1200`; `NaN`.
    package var description: String {
        if isNaN { return "NaN" }
        var digits = String(mantissa)
        if exponent >= 0 {
            digits += String(repeating: "0", count: mantissa == 0 ? 0 : Int(exponent))
        } else {
            let places = -Int(exponent)
            if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return (isNegative ? "-" : "") + digits
    }
}
