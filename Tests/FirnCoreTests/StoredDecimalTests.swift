import Testing
@testable import FirnCore

/// The Decimal field of docs/FORMAT.md §12.2: one encoding per value, every
/// other encoding a defect (`.corrupt`), never a crash.
@Suite struct StoredDecimalTests {
    static func decode(_ bytes: [UInt8]) throws(FirnError) -> StoredDecimal {
        try bytes.withUnsafeBytes { raw in Result { () throws(FirnError) in try StoredDecimal.decode(raw) } }.get()
    }

    static func bytes(exponent: Int8, flags: UInt8, mantissa: UInt128) -> [UInt8] {
        var out: [UInt8] = [UInt8(bitPattern: exponent), flags]
        out.appendLE(UInt64(truncatingIfNeeded: mantissa))
        out.appendLE(UInt64(truncatingIfNeeded: mantissa >> 64))
        return out
    }

    @Test func valuesRoundTripInTheirOneEncoding() throws {
        let values: [StoredDecimal] = [
            StoredDecimal(isNegative: true, exponent: -1, mantissa: 15),
            StoredDecimal(isNegative: false, exponent: 127, mantissa: .max),
            StoredDecimal(isNegative: false, exponent: -128, mantissa: 1),
            StoredDecimal(isNegative: false, exponent: 0, mantissa: 0),
            .nan,
        ]
        for value in values {
            let encoded = value.encoded
            #expect(encoded.count == 18)
            #expect(try Self.decode(encoded) == value)
        }
        // Trailing zeros move into the exponent; zero has no sign or exponent.
        #expect(StoredDecimal(isNegative: false, exponent: -3, mantissa: 1500) == StoredDecimal(isNegative: false, exponent: -1, mantissa: 15))
        #expect(StoredDecimal(isNegative: true, exponent: 5, mantissa: 0).encoded == Self.bytes(exponent: 0, flags: 0, mantissa: 0))
        #expect(StoredDecimal(isNegative: false, exponent: 126, mantissa: 100).encoded == Self.bytes(exponent: 127, flags: 0, mantissa: 10))
    }

    @Test func theDescriptionIsPlainDecimalNotation() {
        #expect(StoredDecimal(isNegative: true, exponent: -1, mantissa: 15).description == "-1.5")
        #expect(StoredDecimal(isNegative: false, exponent: -4, mantissa: 12).description == "0.0012")
        #expect(StoredDecimal(isNegative: false, exponent: 2, mantissa: 12).description == "1200")
        #expect(StoredDecimal(isNegative: false, exponent: 0, mantissa: 0).description == "0")
        #expect(StoredDecimal.nan.description == "NaN")
    }

    @Test func everyOtherEncodingIsADefect() {
        let cases: [([UInt8], String)] = [
            (Self.bytes(exponent: 0, flags: 4, mantissa: 1), "flags 4"),
            (Self.bytes(exponent: 0, flags: 3, mantissa: 0), "flags 3"),
            (Self.bytes(exponent: 1, flags: 2, mantissa: 0), "NaN with an exponent or a mantissa"),
            (Self.bytes(exponent: 0, flags: 2, mantissa: 7), "NaN with an exponent or a mantissa"),
            (Self.bytes(exponent: 0, flags: 1, mantissa: 0), "zero with a sign or an exponent"),
            (Self.bytes(exponent: -2, flags: 0, mantissa: 0), "zero with a sign or an exponent"),
            (Self.bytes(exponent: -2, flags: 0, mantissa: 150), "trailing zero"),
            (Array(Self.bytes(exponent: 0, flags: 0, mantissa: 1).dropLast()), "of 17 bytes (18 expected)"),
            ([], "of 0 bytes"),
        ]
        for (bytes, says) in cases {
            do {
                _ = try Self.decode(bytes)
                Issue.record("\(bytes) decoded")
            } catch {
                guard case .corrupt = error else { Issue.record("\(error)"); continue }
                #expect("\(error)".contains(says), "\(error)")
            }
        }
    }

    @Test func aRecordFieldOfTypeDecimalDecodesThroughTheRecord() throws {
        let value = FieldValue.decimal(StoredDecimal(isNegative: false, exponent: -2, mantissa: 1999))
        let record = ObjectRecord.encode([(tag: 0, type: .decimal, value: value)])
        let read = try record.withUnsafeBytes { raw in
            Result { () throws(FirnError) in try ObjectRecord.value(0, as: .decimal, in: raw) }
        }.get()
        #expect(read == value)
        #expect(PropertyType(rawValue: 14) == .decimal && !PropertyType.decimal.isIndexable && !PropertyType.decimal.canBePrimaryKey)
    }
}
