import FirnCore
import Foundation

/// `Decimal` as a property type (Realm's `Decimal128`): stored in 18 bytes
/// with Foundation's range and precision (a 128-bit mantissa, an 8-bit
/// exponent), so every `Decimal` round-trips exactly (docs/FORMAT.md §12.2).
extension Decimal: PersistablePrimitive {
    public static var _persistedType: PersistedType { PersistedType(.decimal) }
    public static var _persistedDefault: Decimal { 0 }
    public var _persistedField: PersistedField { PersistedField(.decimal(StoredDecimal(self))) }
    public static func _persisted(from field: PersistedField) -> Decimal? {
        if case let .decimal(v)? = field.value { return Decimal(v) }
        return nil
    }
}

extension Decimal: QueryComparable {}

extension Decimal {
    /// The stored value as a `Decimal` (every stored value is one).
    init(_ stored: StoredDecimal) {
        if stored.isNaN {
            self = .nan
            return
        }
        let high = Decimal(UInt64(truncatingIfNeeded: stored.mantissa >> 64))
        let low = Decimal(UInt64(truncatingIfNeeded: stored.mantissa))
        // 2^64 × high + low is exact: the result fits Decimal's 128-bit mantissa.
        let significand = high * (Decimal(UInt64.max) + 1) + low
        self.init(sign: stored.isNegative ? .minus : .plus, exponent: Int(stored.exponent), significand: significand)
    }
}

extension StoredDecimal {
    /// `decimal` in its one stored encoding.
    init(_ decimal: Decimal) {
        // Foundation keeps the exponent within Int8 and the significand
        // within 128 bits; its integer significand prints as plain digits.
        guard !decimal.isNaN, let exponent = Int8(exactly: decimal.exponent),
              let mantissa = UInt128(decimal.significand.description) else {
            self = .nan
            return
        }
        self.init(isNegative: decimal.sign == .minus, exponent: exponent, mantissa: mantissa)
    }
}
