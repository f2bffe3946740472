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
}
