/// One tree's changes in a write transaction (`LogChangeSet`): one entry per
/// key, found through a hash table, put in key order only when asked
/// (`sorted()`: a cursor, the frame's payload, a checkpoint's replay).
///
/// It replaced a sorted `[LogEntry]` kept in order on every put: a put of a
/// new key moved every entry after it, so a transaction of n random keys
/// moved O(n²) entries (a million-record import never finished). Here a
/// put is a hash probe and an append; the entries are sorted once, and the
/// keys put since the last sort are sorted and merged into it, so a
/// transaction of n puts costs O(n log n) whatever the key order.
///
/// A cursor taken between puts asks for the order again. While few keys
/// come between two such reads (`incrementalInserts`), the sorted copy is
/// kept up to date by inserting each new key into it (a binary search and
/// one move of the entries after it, as the sorted array did), so a list's
/// append-then-read does not re-sort; past that the copy is dropped and the
/// next read merges.
struct LogEntryTable {
    /// The entries in the order their keys were first put; a later put or
    /// delete of the same key replaces its value in place.
    private var items: [LogEntry] = []
    /// Each item's key hash (`KeyHashFilter.hash`), compared before its bytes.
    private var hashes: [UInt64] = []
    /// Open addressing over `items`: an item's position + 1, 0 for an empty
    /// slot. A power of two in size, at most half full.
    private var slots: [Int] = []
    /// Positions of `items[0..<orderedCount]` in key order.
    private var order: [Int] = []
    private var orderedCount = 0
    /// The entries in key order, when they are up to date (nil otherwise).
    private var cache: [LogEntry]?
    /// New keys inserted into `cache` one by one since it was last read.
    private var insertsSinceRead = 0
    /// Items whose value is nil (a deletion).
    private(set) var deletions = 0
    /// Key comparisons made in sorting and merging plus entries moved to
    /// make room in the sorted copy: what tests bound to prove a
    /// transaction's cost O(n log n) by count, not by clock.
    private(set) var work = 0

    /// New keys the sorted copy takes one at a time between two reads
    /// before it is dropped for a merge at the next read.
    static let incrementalInserts = 16
    static let initialSlots = 16

    private static let seed = KeyHashFilter.seed("")

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }

    /// The entry for exactly `key`, if any.
    func entry(for key: UnsafeRawBufferPointer) -> LogEntry? {
        guard !slots.isEmpty else { return nil }
        let slot = probe(key, hash: KeyHashFilter.hash(key, seed: Self.seed))
        let position = slots[slot]
        return position == 0 ? nil : items[position - 1]
    }

    /// Puts `entry`, replacing the entry of the same key.
    mutating func upsert(_ entry: LogEntry) {
        if (items.count + 1) * 2 > slots.count { grow() }
        let hash = KeyHashFilter.hash(entry.key, seed: Self.seed)
        let slot = probe(entry.key, hash: hash)
        let position = slots[slot]
        if position != 0 {
            let at = position - 1
            if items[at].value == nil { deletions -= 1 }
            if entry.value == nil { deletions += 1 }
            items[at] = entry
            if var copy = cache {
                cache = nil  // the copy stays the array's only owner: no copy on write
                copy[copy.lowerBound(entry.key)] = entry
                cache = copy
            }
            return
        }
        items.append(entry)
        hashes.append(hash)
        slots[slot] = items.count
        if entry.value == nil { deletions += 1 }
        guard var copy = cache else { return }
        cache = nil
        guard insertsSinceRead < Self.incrementalInserts else { return }
        insertsSinceRead += 1
        let index = copy.lowerBound(entry.key)
        work += copy.count - index
        copy.insert(entry, at: index)
        cache = copy
    }

    /// The entries in key order, deletions included.
    mutating func sorted() -> [LogEntry] {
        insertsSinceRead = 0
        if let cache { return cache }
        mergeNewPositions()
        work += order.count
        let built = order.map { items[$0] }
        cache = built
        return built
    }

    /// The entries in key order without deletions: what a frame carries for
    /// a tree this transaction created or dropped, where a key put and then
    /// deleted leaves no trace.
    mutating func sortedWithoutDeletions() -> [LogEntry] {
        let all = sorted()
        return deletions == 0 ? all : all.filter { $0.value != nil }
    }

    /// Sorts the positions put since the last sort and merges them into `order`.
    private mutating func mergeNewPositions() {
        guard orderedCount < items.count else { return }
        items.withUnsafeBufferPointer { items in
            var fresh = Array(orderedCount..<items.count)
            var comparisons = 0
            fresh.sort {
                comparisons += 1
                return compareBytes(items[$0].key, items[$1].key) < 0
            }
            work += comparisons
            guard !order.isEmpty else {
                order = fresh
                return
            }
            work += order.count + fresh.count
            var merged: [Int] = []
            merged.reserveCapacity(items.count)
            var i = 0, j = 0
            // Keys are unique (the hash table), so no two compare equal.
            while i < order.count, j < fresh.count {
                if compareBytes(items[order[i]].key, items[fresh[j]].key) < 0 {
                    merged.append(order[i])
                    i += 1
                } else {
                    merged.append(fresh[j])
                    j += 1
                }
            }
            merged.append(contentsOf: order[i...])
            merged.append(contentsOf: fresh[j...])
            order = merged
        }
        orderedCount = items.count
    }

    /// The slot holding `key` (its position non-zero), or the empty one
    /// where it would go. The table is never full (it doubles at half), so
    /// the probe ends.
    private func probe(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let position = slots[slot]
            if position == 0 { return slot }
            if hashes[position - 1] == hash, compareBytes(items[position - 1].key, key) == 0 { return slot }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        let size = max(Self.initialSlots, slots.count * 2)
        slots = [Int](repeating: 0, count: size)
        let mask = size - 1
        for (at, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = at + 1
        }
    }
}
