/// The keys a lookup knows bound the page it is about to read: the
/// separators on either side of the child it took in each branch above
/// (nil where the page is the first or last of its parent, up to the root).
///
/// They make a search hint, never a result: where the key falls between
/// them, as a fraction, says about where among the page's cells it lands
/// when the keys are spread evenly between the bounds (random or hashed
/// keys, counters, time stamps). The search probes there first and its
/// neighbours next, lines the hint asked for before the page's header was
/// read, instead of following a binary search's probes down the page one
/// cache miss after another. Any other spread costs a few more probes, each
/// bounded (`PageView.firstAfter`); a bound a damaged page gives only makes
/// the hint worse.
struct KeyBounds {
    var low: UnsafeRawBufferPointer?
    var high: UnsafeRawBufferPointer?

    static var unbounded: KeyBounds { KeyBounds(low: nil, high: nil) }

    /// The bounds of child `index` of `branch`: its separator and the next
    /// one, or this page's own where it has none.
    @inline(__always)
    func child(_ index: Int, of branch: PageView) throws(FirnError) -> KeyBounds {
        KeyBounds(low: index >= 1 ? try branch.branchKey(index) : low,
                  high: index + 1 < branch.count ? try branch.branchKey(index + 1) : high)
    }

    /// Where `key` falls between the bounds, in 0..<1, from the 8 bytes
    /// after the bounds' common prefix read as one big-endian number; nil
    /// when a bound is missing, or the two are equal or out of order there
    /// (bounds that differ only by trailing zero bytes, or a damaged page).
    @inline(__always)
    func fraction(of key: UnsafeRawBufferPointer) -> Double? {
        guard let low, let high else { return nil }
        let n = Swift.min(low.count, high.count)
        var prefix = 0
        while prefix < n && low[prefix] == high[prefix] { prefix += 1 }
        let a = bigEndianWord(low, from: prefix), b = bigEndianWord(high, from: prefix)
        let x = bigEndianWord(key, from: prefix)
        guard b > a else { return nil }
        if x <= a { return 0 }
        if x >= b { return Self.belowOne }
        // Both differences round to Doubles: their ratio may reach 1.
        return Swift.min(Double(x - a) / Double(b - a), Self.belowOne)
    }

    /// The largest Double below 1, so a fraction times a count stays below it.
    private static let belowOne = 1.0 - Double.ulpOfOne / 2
}
