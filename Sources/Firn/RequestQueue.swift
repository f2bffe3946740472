/// A first-in, first-out queue whose `popFirst` costs O(1) amortized, for
/// an instance's pending async write requests: `Array.removeFirst` moves
/// every element after the first, so a burst of n queued requests cost
/// O(n²) to start (10,000 `writeAsync` calls queued at once are common).
struct RequestQueue<Element> {
    /// Taken elements are nil up to `head`; compacted as the queue drains.
    private var storage: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= Self.compactionMinimum && head * 2 >= storage.count {
            // Half the storage is taken slots: drop them, once per doubling.
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes the first element `matches` accepts; false when none does.
    mutating func removeFirst(where matches: (Element) -> Bool) -> Bool {
        guard let index = storage[head...].firstIndex(where: { $0.map(matches) ?? false }) else { return false }
        storage.remove(at: index)
        return true
    }

    /// Taken slots are dropped only past this many, so a short queue never compacts.
    static var compactionMinimum: Int { 64 }
}
