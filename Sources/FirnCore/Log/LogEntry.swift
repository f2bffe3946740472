/// A key's newest change in a run of commit frames: the value (pointing into
/// the frame's bytes in the map, zero-copy) or nil for a deletion, and the
/// version whose frame made it.
struct LogEntry {
    var key: UnsafeRawBufferPointer
    var value: UnsafeRawBufferPointer?
    var version: UInt64
}

extension Array where Element == LogEntry {
    /// The index of the first entry whose key is at or after `key` (entries
    /// sorted by key, one per key).
    func lowerBound(_ key: UnsafeRawBufferPointer) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if compareBytes(self[mid].key, key) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The entry for exactly `key`, if any.
    func entry(for key: UnsafeRawBufferPointer) -> LogEntry? {
        let index = lowerBound(key)
        guard index < count, compareBytes(self[index].key, key) == 0 else { return nil }
        return self[index]
    }

    /// One run of entries sorted by key with one entry per key, from runs
    /// given newest first: where runs share a key, the newest run's entry
    /// is kept. Each run must itself be sorted with one entry per key.
    static func mergingNewestFirst(_ runs: [[LogEntry]]) -> [LogEntry] {
        if runs.count == 1 { return runs[0] }
        // The common case, a version's frame over its parent's merged
        // entries: one pass, no sort.
        if runs.count == 2 { return merging(newer: runs[0], older: runs[1]) }
        var tagged: [(entry: LogEntry, run: Int)] = []
        tagged.reserveCapacity(runs.reduce(0) { $0 + $1.count })
        for (run, entries) in runs.enumerated() {
            for entry in entries { tagged.append((entry, run)) }
        }
        tagged.sort { a, b in
            let order = compareBytes(a.entry.key, b.entry.key)
            return order != 0 ? order < 0 : a.run < b.run
        }
        var merged: [LogEntry] = []
        merged.reserveCapacity(tagged.count)
        for item in tagged {
            if let last = merged.last, compareBytes(last.key, item.entry.key) == 0 { continue }
            merged.append(item.entry)
        }
        return merged
    }

    /// Two runs merged in one pass; on a shared key `newer`'s entry is kept.
    static func merging(newer: [LogEntry], older: [LogEntry]) -> [LogEntry] {
        if newer.isEmpty { return older }
        if older.isEmpty { return newer }
        var merged: [LogEntry] = []
        merged.reserveCapacity(newer.count + older.count)
        var i = 0, j = 0
        while i < newer.count, j < older.count {
            let order = compareBytes(newer[i].key, older[j].key)
            if order <= 0 {
                merged.append(newer[i])
                i += 1
                if order == 0 { j += 1 }
            } else {
                merged.append(older[j])
                j += 1
            }
        }
        merged.append(contentsOf: newer[i...])
        merged.append(contentsOf: older[j...])
        return merged
    }
}
