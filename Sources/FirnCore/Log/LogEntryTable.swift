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
    /// Each item's key hash (`KeyHashFilter.hash`): the table is rebuilt from them as it grows.
    private var hashes: [UInt64] = []
    /// Each item's key prefix (`bigEndianWord`): sorting and merging compare
    /// these first, side by side in memory, and read a key's bytes (in the
    /// arena, in the order they were put: a cache miss each) only on a tie.
    /// Comparing through the keys made the sort of a million-entry
    /// transaction 30 % of its load.
    private var prefixes: [UInt64] = []
    /// Open addressing over `items`: an item's position + 1 in the low
    /// `positionBits`, the high bits of its key's hash above them (compared
    /// before the key, so a probe past other keys reads this array only);
    /// 0 for an empty slot. A power of two in size, at most half full.
    private var slots: [UInt64] = []
    private static let positionBits: UInt64 = 40
    private static let positionMask: UInt64 = (1 << positionBits) - 1
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
        let position = Self.position(slots[slot])
        return position == 0 ? nil : items[position - 1]
    }

    /// Where a key is, or would go, in the table: what `find` returns and
    /// `put(_:at:)` takes, so a put that first asks whether its key is there
    /// probes once. Valid until the table next changes.
    struct Slot {
        fileprivate let index: Int
        fileprivate let hash: UInt64
        /// The entry the table holds for the key, nil when none.
        let existing: LogEntry?
    }

    /// The slot of `key`. Makes room for one more entry first, so the slot
    /// stays valid for a `put` of a new key.
    mutating func find(_ key: UnsafeRawBufferPointer) -> Slot {
        if (items.count + 1) * 2 > slots.count { grow() }
        let hash = KeyHashFilter.hash(key, seed: Self.seed)
        let index = probe(key, hash: hash)
        let position = Self.position(slots[index])
        return Slot(index: index, hash: hash, existing: position == 0 ? nil : items[position - 1])
    }

    /// Puts `entry`, replacing the entry of the same key.
    mutating func upsert(_ entry: LogEntry) {
        put(entry, at: find(entry.key))
    }

    /// Puts `entry` into `slot`, which `find` returned for its key with no
    /// change to the table since.
    mutating func put(_ entry: LogEntry, at slot: Slot) {
        let position = Self.position(slots[slot.index])
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
        hashes.append(slot.hash)
        prefixes.append(bigEndianWord(entry.key))
        slots[slot.index] = Self.slotWord(position: items.count, hash: slot.hash)
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
        let comparisons = items.withUnsafeBufferPointer { items in
            prefixes.withUnsafeBufferPointer { prefixes in
                Self.sortAndMerge(items: items, prefixes: prefixes, ordered: orderedCount, into: &order)
            }
        }
        work += comparisons
        orderedCount = items.count
    }

    /// Sorts positions `ordered..<items.count` by key and merges them into
    /// `order` (the positions before, in key order); returns the key
    /// comparisons and entries merged, for `work`. Keys are unique (the hash
    /// table), so no two compare equal.
    private static func sortAndMerge(items: UnsafeBufferPointer<LogEntry>, prefixes: UnsafeBufferPointer<UInt64>,
                                     ordered: Int, into order: inout [Int]) -> Int {
        @inline(__always) func less(_ a: Int, _ b: Int) -> Bool {
            let x = prefixes[a], y = prefixes[b]
            return x != y ? x < y : compareBytes(items[a].key, items[b].key) < 0
        }
        // Sorted as (prefix, position) pairs: the comparisons read one
        // contiguous array, not the prefixes at random positions.
        var fresh: [(prefix: UInt64, position: Int)] = []
        fresh.reserveCapacity(items.count - ordered)
        for position in ordered..<items.count { fresh.append((prefixes[position], position)) }
        var comparisons = 0
        if fresh.count < Self.radixSortAbove {
            fresh.sort { a, b in
                comparisons += 1
                return less(a.position, b.position)
            }
        } else {
            comparisons += Self.radixSort(&fresh)
            // Runs of equal prefixes are in put order: their keys decide.
            var start = 0
            while start < fresh.count {
                var end = start + 1
                while end < fresh.count && fresh[end].prefix == fresh[start].prefix { end += 1 }
                if end - start > 1 {
                    fresh[start..<end].sort { a, b in
                        comparisons += 1
                        return compareBytes(items[a.position].key, items[b.position].key) < 0
                    }
                }
                start = end
            }
        }
        guard !order.isEmpty else {
            order = fresh.map(\.position)
            return comparisons
        }
        var merged: [Int] = []
        merged.reserveCapacity(items.count)
        var i = 0, j = 0
        while i < order.count, j < fresh.count {
            if less(order[i], fresh[j].position) {
                merged.append(order[i])
                i += 1
            } else {
                merged.append(fresh[j].position)
                j += 1
            }
        }
        merged.append(contentsOf: order[i...])
        for k in j..<fresh.count { merged.append(fresh[k].position) }
        order = merged
        return comparisons + order.count
    }

    /// Below this many new keys a comparison sort is quicker than the
    /// radix sort's passes.
    static let radixSortAbove = 4096

    /// Sorts `pairs` by prefix (stable: equal prefixes keep their order),
    /// a byte at a time from the lowest, skipping the bytes all prefixes
    /// share; returns the elements moved, for `work`. A comparison sort of
    /// a million pairs was a tenth of a million-record load.
    private static func radixSort(_ pairs: inout [(prefix: UInt64, position: Int)]) -> Int {
        var moved = 0
        var other = pairs
        for shift in stride(from: UInt64(0), to: 64, by: 8) {
            var counts = [Int](repeating: 0, count: 256)
            for pair in pairs { counts[Int(truncatingIfNeeded: pair.prefix >> shift) & 0xFF] += 1 }
            if counts.contains(pairs.count) { continue }  // every prefix has this byte
            var offset = 0
            for byte in 0..<256 {
                let n = counts[byte]
                counts[byte] = offset
                offset += n
            }
            pairs.withUnsafeBufferPointer { source in
                other.withUnsafeMutableBufferPointer { target in
                    for pair in source {
                        let byte = Int(truncatingIfNeeded: pair.prefix >> shift) & 0xFF
                        target[counts[byte]] = pair
                        counts[byte] += 1
                    }
                }
            }
            swap(&pairs, &other)
            moved += pairs.count
        }
        return moved
    }

    /// The slot holding `key` (its position non-zero), or the empty one
    /// where it would go. The table is never full (it doubles at half), so
    /// the probe ends.
    private func probe(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int {
        let mask = slots.count - 1
        let tag = Self.tag(hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let word = slots[slot]
            if word == 0 { return slot }
            if word & ~Self.positionMask == tag, compareBytes(items[Self.position(word) - 1].key, key) == 0 { return slot }
            slot = (slot + 1) & mask
        }
    }

    @inline(__always)
    private static func position(_ word: UInt64) -> Int { Int(truncatingIfNeeded: word & positionMask) }

    @inline(__always)
    private static func tag(_ hash: UInt64) -> UInt64 { hash & ~positionMask }

    /// A slot's word. Positions past `positionMask` (a trillion entries in
    /// one transaction) cannot be stored: memory runs out long before.
    @inline(__always)
    private static func slotWord(position: Int, hash: UInt64) -> UInt64 {
        precondition(UInt64(position) <= positionMask, "a transaction of more than 2^40 entries")
        return tag(hash) | UInt64(position)
    }

    private mutating func grow() {
        let size = max(Self.initialSlots, slots.count * 2)
        slots = [UInt64](repeating: 0, count: size)
        let mask = size - 1
        for (at, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Self.slotWord(position: at + 1, hash: hash)
        }
    }
}
