import Testing
@testable import FirnCore

/// compareBytes is memcmp order, shorter first on a tie, whatever the
/// lengths around its 8-byte fast path.
@Suite struct CompareBytesTests {
    static func reference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
    }

    @Test func agreesWithLexicographicOrder() {
        var state: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        for _ in 0..<20_000 {
            let n = Int(next() % 20), m = Int(next() % 20)
            // Small alphabet: long shared prefixes and ties are common.
            var a = (0..<n).map { _ in UInt8(next() % 3) * 127 }
            var b = (0..<m).map { _ in UInt8(next() % 3) * 127 }
            if next() % 4 == 0 { b = Array(a.prefix(m)) + b.dropFirst(min(m, a.count)) }
            if next() % 8 == 0 { a = b }
            #expect(compareBytes(a, b) == Self.reference(a, b), "\(a) vs \(b)")
        }
    }
}
