import Testing
@testable import Firn

/// The async write queue's FIFO: order kept across its compactions, and a
/// cancelled request taken out from anywhere.
@Suite struct RequestQueueTests {
    @Test func popsInOrderThroughCompactionsAndRemovesFromAnywhere() {
        var queue = RequestQueue<Int>()
        var model: [Int] = []
        var next = 0
        // Bursts larger and smaller than the compaction threshold, popped
        // part way, with removals in between.
        for round in 0..<40 {
            for _ in 0..<(round % 7 == 0 ? 300 : 37) {
                queue.append(next)
                model.append(next)
                next += 1
            }
            for _ in 0..<(round % 3 == 0 ? 250 : 20) {
                let popped = queue.popFirst()
                #expect(popped == (model.isEmpty ? nil : model.removeFirst()))
            }
            if let victim = model.dropFirst(model.count / 2).first {
                let removed = queue.removeFirst(where: { $0 == victim })
                #expect(removed)
                model.removeAll { $0 == victim }
            }
            let absent = queue.removeFirst(where: { $0 == -1 })
            #expect(!absent)
            #expect(queue.count == model.count && queue.isEmpty == model.isEmpty)
        }
        while let first = queue.popFirst() { #expect(first == model.removeFirst()) }
        let last = queue.popFirst()
        #expect(model.isEmpty && queue.isEmpty && last == nil)
    }
}
