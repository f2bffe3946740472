import Testing
@testable import FirnCore

/// `ByteRangeMap`, behind `verify`'s overlapping-cells finding: ranges that
/// share a byte are told apart from ranges that only touch, within a word
/// and across word boundaries, and `clear` forgets every mark.
@Suite struct ByteRangeMapTests {
    @Test func overlapsAreFoundAndTouchingRangesAreNot() {
        var map = ByteRangeMap(bytes: 4096)
        let r1 = map.mark(4000..<4048)
        #expect(r1)
        let r2 = map.mark(4048..<4096)
        #expect(r2, "touching the end of the first range is apart")
        let r3 = map.mark(3950..<4000)
        #expect(r3, "touching its start is apart")
        let r4 = map.mark(4047..<4050)
        #expect(!r4, "one shared byte is an overlap")
        let r5 = map.mark(60..<200)
        #expect(r5, "a range across three words")
        let r6 = map.mark(199..<201)
        #expect(!r6)
        let r7 = map.mark(0..<61)
        #expect(!r7)
        map.clear()
        let r8 = map.mark(0..<4096)
        #expect(r8, "clear forgets every mark")
        let r9 = map.mark(4095..<5000)
        #expect(!r9, "a range past the page is clamped, its bytes inside still count")
    }

    /// Ranges in order either way pass without marks; out of order, the
    /// marks find the first range that overlaps one before it.
    @Test func firstOverlapInOrderedAndUnorderedLayouts() {
        var map = ByteRangeMap(bytes: 4096)
        #expect(map.firstOverlap(in: [100..<200, 200..<260, 300..<400]) == nil)
        #expect(map.firstOverlap(in: [3000..<4096, 2900..<3000, 10..<20]) == nil)
        #expect(map.firstOverlap(in: [100..<200, 199..<260]) == 199..<260)
        #expect(map.firstOverlap(in: [3000..<4096, 2900..<3001]) == 2900..<3001)
        #expect(map.firstOverlap(in: [500..<600, 100..<200, 700..<800, 150..<160, 900..<950]) == 150..<160)
        #expect(map.firstOverlap(in: [500..<600, 100..<200, 700..<800, 200..<500, 600..<700]) == nil)
        // Marks from an earlier page do not leak into the next.
        #expect(map.firstOverlap(in: [150..<160, 100..<120, 4000..<4010]) == nil)
    }
}
