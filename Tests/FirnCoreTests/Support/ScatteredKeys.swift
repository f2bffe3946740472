/// Keys that land all over a tree (`PinnedGrowthTests`, `ContiguousAllocationTests`).
enum ScatteredKeys {
    /// 16 bytes mixed from `i`: neighbouring numbers are far apart in key order.
    static func key(_ i: Int) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 16)
        var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
        for j in 0..<16 { key[j] = UInt8(truncatingIfNeeded: x >> UInt64((j % 8) * 8)); if j == 7 { x = x &* 31 &+ 7 } }
        return key
    }
}
