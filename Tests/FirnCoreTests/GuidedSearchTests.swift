import Testing
@testable import FirnCore
import FirnTestSupport

/// A lookup guides each page's search by where the key falls between the
/// separators above it (`KeyBounds`, `PageView.firstAfter`). The guess is a
/// hint: whatever it is, the search must find what a binary search finds,
/// in a bounded number of probes, on any layout and spread of keys.
@Suite struct GuidedSearchTests {
    static let pageSize = 4096

    /// Key sets of several spreads, each sorted and without duplicates.
    static func keySets() -> [(String, [[UInt8]])] {
        var g = SeededGenerator(seed: 0x5EED)
        let uniform = (0..<40).map { _ in g.bytes(16) }
        let counters = (0..<90).map { i -> [UInt8] in (0..<8).map { UInt8(truncatingIfNeeded: (i * 977) >> (8 * (7 - $0))) } }
        let prefixed = (0..<70).map { i in Array("user/profile/\(i * i % 1000)".utf8) }
        let short = (0..<60).map { _ in g.bytes(1 + Int(g.next() % 3)) }
        let skewed = (0..<80).map { i -> [UInt8] in i < 70 ? [0, 0, UInt8(i)] : [0xFF] + g.bytes(5) }
        return [("uniform", uniform), ("counters", counters), ("prefixed", prefixed), ("short", short),
                ("skewed", skewed), ("one", [[7]])].map { ($0.0, Array(Set($0.1)).sorted { $0.lexicographicallyPrecedes($1) }) }
    }

    /// Keys to look for: each key, and keys just below, just above and
    /// between them, the empty key and one above everything.
    static func queries(_ keys: [[UInt8]]) -> [[UInt8]] {
        var q: [[UInt8]] = [[], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        for k in keys {
            q.append(k)
            q.append(k + [0])
            q.append(Array(k.dropLast()))
            if let last = k.last, last > 0 { q.append(Array(k.dropLast()) + [last - 1, 0xFF]) }
        }
        return q
    }

    static func value(_ key: [UInt8]) -> [UInt8] { key.reversed() + [UInt8](repeating: 0xA5, count: 90) }

    static let guesses: [Double?] = [nil, 0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0 - Double.ulpOfOne]

    /// Fills `page` in key order (or, `shuffled`, in another order, so the
    /// cells do not lie in key order) and hands its sealed view to `body`.
    static func withPage(_ keys: [[UInt8]], leaf: Bool, shuffled: Bool,
                         _ body: (PageView) throws -> Void) rethrows {
        let page = NodePage(pageSize: pageSize, isLeaf: leaf)
        var order = Array(keys.indices)
        if shuffled { order.reverse(); order.swapAt(0, order.count / 2) }
        for i in order {
            // The slot keeps key order whatever order the cells go in.
            let slot = (0..<page.count).filter { page.key($0).lexicographicallyPrecedes(keys[i]) }.count
            keys[i].withUnsafeBytes { k in
                if leaf {
                    [UInt8](repeating: 1, count: 20).withUnsafeBytes { v in page.insert(at: slot, key: k, value: .inline(v)) }
                } else {
                    page.insert(at: slot, key: k, child: PageRef(page: UInt64(100 + i), birth: 1, checksum: 0))
                }
            }
        }
        let (bytes, _) = page.seal(pageNumber: 9, birth: 1, level: leaf ? 0 : 1)
        let copy = Array(bytes)
        try copy.withUnsafeBytes { raw in try body(PageView(base: raw.baseAddress!, pageSize: pageSize, number: 9)) }
    }

    @Test func everyGuessFindsWhatABinarySearchFindsInALeaf() throws {
        for (name, keys) in Self.keySets() {
            for shuffled in [false, true] {
                try Self.withPage(Array(keys.prefix(40)), leaf: true, shuffled: shuffled) { view in
                    let stored = (0..<view.count).map { Array(try! view.leafKey($0)) }
                    for q in Self.queries(stored) {
                        let lowerBound = stored.firstIndex { !$0.lexicographicallyPrecedes(q) } ?? stored.count
                        let expected = (lowerBound, lowerBound < stored.count && stored[lowerBound] == q)
                        for guess in Self.guesses {
                            let got = try q.withUnsafeBytes { try view.leafSearch($0, guess: guess) }
                            #expect(got == expected, "\(name), shuffled \(shuffled), key \(q), guess \(String(describing: guess))")
                        }
                    }
                }
            }
        }
    }

    @Test func everyGuessFindsWhatABinarySearchFindsInABranch() throws {
        for (name, keys) in Self.keySets() {
            // Separator 0 stands for minus infinity: an empty key.
            let separators = [[]] + keys.filter { !$0.isEmpty }.prefix(90)
            try Self.withPage(separators, leaf: false, shuffled: false) { view in
                let stored = (0..<view.count).map { Array(try! view.branchKey($0)) }
                for q in Self.queries(stored) {
                    // The last separator at or below the key (0 for none).
                    let expected = (1..<stored.count).last { !q.lexicographicallyPrecedes(stored[$0]) } ?? 0
                    for guess in Self.guesses {
                        let got = try q.withUnsafeBytes { try view.branchSearch($0, guess: guess) }
                        #expect(got == expected, "\(name), key \(q), guess \(String(describing: guess))")
                    }
                }
            }
        }
    }

    /// A guess `d` cells off costs at most 2·log2(d + 1) + 3 probes, and any
    /// guess at most 2·log2(n) + 4: never a scan of the page.
    @Test func aGuessCostsProbesLogarithmicInHowFarOffItIs() throws {
        // A zeroed page: the binary search's prefetch hints read its cell table.
        let zeroes = [UInt8](repeating: 0, count: Self.pageSize)
        try zeroes.withUnsafeBytes { raw in
        let view = PageView(base: raw.baseAddress!, pageSize: Self.pageSize, number: 9)
        for n in [1, 2, 3, 7, 32, 100, 513] {
            for answer in 0...n {
                for guess in Set([0, n / 3, n / 2, n - 1, answer, answer - 1, answer + 1, answer + 5]) {
                    for found in [false, true] where !found || answer < n {
                        var probes = 0
                        let r = try view.firstAfter(0, n, guess: guess, equalGoesRight: false) { (i) throws(FirnError) in
                            probes += 1
                            return i < answer ? -1 : (i == answer && found ? 0 : 1)
                        }
                        #expect(r.index == answer && r.found == found, "n \(n), answer \(answer), guess \(guess)")
                        let d = abs(Swift.min(Swift.max(guess, 0), n - 1) - answer)
                        let log2 = { (x: Int) in Int.bitWidth - x.leadingZeroBitCount }
                        #expect(probes <= 2 * log2(d + 1) + 3, "n \(n), answer \(answer), guess \(guess): \(probes) probes")
                        #expect(probes <= 2 * log2(n) + 4, "n \(n), answer \(answer), guess \(guess): \(probes) probes")
                    }
                }
            }
        }
        }
    }

    @Test func theFractionFollowsTheKeyBetweenItsBounds() {
        func fraction(_ key: [UInt8], _ low: [UInt8]?, _ high: [UInt8]?) -> Double? {
            key.withUnsafeBytes { k in
                (low ?? []).withUnsafeBytes { l in
                    (high ?? []).withUnsafeBytes { h in
                        KeyBounds(low: low == nil ? nil : l, high: high == nil ? nil : h).fraction(of: k)
                    }
                }
            }
        }
        #expect(fraction([5], nil, [9]) == nil)
        #expect(fraction([5], [1], nil) == nil)
        #expect(fraction([5], [9], [1]) == nil, "bounds out of order (a damaged page): no hint")
        #expect(fraction([5], [3], [3]) == nil)
        #expect(fraction([0], [1], [9]) == 0)
        #expect(fraction([9, 9], [1], [9]).map { $0 < 1 } == true)
        #expect(fraction([5], [1], [9]) == 0.5)
        // The common prefix is skipped: the bytes after it decide.
        #expect(fraction(Array("user/5".utf8), Array("user/1".utf8), Array("user/9".utf8)) == 0.5)
        // Past 8 bytes of difference, and keys shorter than 8 bytes, zero-filled.
        let low: [UInt8] = [1] + [UInt8](repeating: 0, count: 15), high: [UInt8] = [3] + [UInt8](repeating: 0, count: 15)
        #expect(fraction([2] + [UInt8](repeating: 0, count: 15), low, high) == 0.5)
        #expect(fraction([2], low, high) == 0.5)
        var g = SeededGenerator(seed: 3)
        var last = -1.0
        for x in (0..<200).map({ _ in g.bytes(16) }).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let f = fraction(x, [UInt8](repeating: 0, count: 16), [UInt8](repeating: 0xFF, count: 16))!
            #expect(f >= last && f >= 0 && f < 1)
            last = f
        }
    }

    /// Through the store: trees of several spreads and three or more levels,
    /// every key found with its value and every key between
    /// them missing.
    @Test func lookupsFindEveryKeyOfEverySpread() throws {
        let dir = try TemporaryDirectory()
        var options = StoreOptions()
        options.commitLogPages = 0
        let store = try Store.open(dir.file("spreads.firn"), options: options)
        defer { store.close() }
        var g = SeededGenerator(seed: 11)
        let sets: [(String, [[UInt8]])] = [
            ("uniform", (0..<6000).map { _ in g.bytes(16) }),
            ("counters", (0..<6000).map { i in (0..<8).map { UInt8(truncatingIfNeeded: (i * 3) >> (8 * (7 - $0))) } }),
            ("prefixed", (0..<4000).map { i in Array("tenant-7/orders/\(i % 10)/\(i * 7919 % 100_000)".utf8) }),
            ("skewed", (0..<4000).map { i in i < 3900 ? [0, 0] + g.bytes(2) : [0xFF] + g.bytes(14) }),
        ]
        for (name, keys) in sets {
            try store.write { txn in
                let tree = try #require(try txn.tree(name))
                for k in keys { try tree.put(k, Self.value(k)) }
            }
        }
        let snapshot = try store.snapshot()
        defer { snapshot.close() }
        for (name, keys) in sets {
            let tree = try #require(try snapshot.tree(name))
            #expect(try tree.depth() >= 3, "\(name): the lookups must cross two branch levels")
            let present = Set(keys)
            for k in present {
                #expect(try tree.get(k).map { Array($0.bytes) } == Self.value(k), "\(name) \(k)")
            }
            for k in present.prefix(2000) {
                for missing in [k + [0], Array(k.dropLast())] where !present.contains(missing) {
                    #expect(try tree.get(missing) == nil, "\(name) \(missing)")
                }
            }
        }
    }
}

extension SeededGenerator {
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
}
