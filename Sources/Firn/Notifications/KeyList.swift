/// The keys of unsorted results in key order, as an observer keeps them
/// between versions: sorted chunks of at most `2 * chunkSize` keys, with
/// the position of each chunk's first key. A changed key's position is a
/// binary search over the chunks' first keys, then within one chunk; an
/// insertion or deletion moves the keys of one chunk. A step of `c` changes
/// costs O(c · (log n + chunkSize) + n / chunkSize): the change, not the
/// data (the per-chunk positions are summed once per step).
struct KeyList {
    static let chunkSize = 256
    private var chunks: [[[UInt8]]] = []
    /// The position of each chunk's first key.
    private var starts: [Int] = []
    private(set) var count = 0

    init(_ sorted: [[UInt8]]) {
        var index = 0
        while index < sorted.count {
            let end = min(index + Self.chunkSize, sorted.count)
            chunks.append(Array(sorted[index..<end]))
            index = end
        }
        count = sorted.count
        renumber()
    }

    var keys: [[UInt8]] { chunks.flatMap { $0 } }

    private mutating func renumber() {
        starts.removeAll(keepingCapacity: true)
        var position = 0
        for chunk in chunks {
            starts.append(position)
            position += chunk.count
        }
        count = position
    }

    /// The chunk that holds `key` or would: the last whose first key is
    /// not above it (the first chunk for keys below every chunk).
    private func chunk(for key: [UInt8]) -> Int {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if key.lexicographicallyPrecedes(chunks[middle][0]) { high = middle } else { low = middle + 1 }
        }
        return max(0, low - 1)
    }

    /// Where `key` is or would go: chunk, offset in it, and whether it is there.
    private func locate(_ key: [UInt8]) -> (chunk: Int, offset: Int, found: Bool) {
        guard !chunks.isEmpty else { return (0, 0, false) }
        let c = chunk(for: key)
        let keys = chunks[c]
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle].lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return (c, low, low < keys.count && keys[low] == key)
    }

    /// Applies one step's key changes (in key order) and returns their
    /// positions: deletions and modifications in the list before,
    /// insertions in the list after (Realm's contract, and UIKit's batch
    /// updates': a reload names the row as it was).
    mutating func apply(_ changes: [VersionChanges.KeyChange]) -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
        var deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []
        // Positions first, against the list before (changes are in key order).
        var edits: [(chunk: Int, offset: Int, change: VersionChanges.KeyChange)] = []
        var deleted = 0, inserted = 0
        for change in changes {
            let (c, offset, found) = locate(change.key)
            let before = (starts.isEmpty ? 0 : starts[c]) + offset
            switch change.kind {
            case .deleted:
                guard found else { continue }
                deletions.append(before)
                deleted += 1
            case .inserted:
                guard !found else { continue }
                insertions.append(before - deleted + inserted)
                inserted += 1
            case .changed:
                guard found else { continue }
                modifications.append(before)
                continue  // the list does not change
            }
            edits.append((c, offset, change))
        }
        guard !edits.isEmpty else { return (deletions, insertions, modifications) }
        // Then the edits, last first, so earlier offsets stay valid.
        if chunks.isEmpty { chunks = [[]] }
        for edit in edits.reversed() {
            switch edit.change.kind {
            case .deleted: chunks[edit.chunk].remove(at: edit.offset)
            case .inserted: chunks[edit.chunk].insert(edit.change.key, at: edit.offset)
            case .changed: break
            }
        }
        // Empty chunks go, long ones split.
        var rebuilt: [[[UInt8]]] = []
        rebuilt.reserveCapacity(chunks.count + 1)
        for chunk in chunks where !chunk.isEmpty {
            if chunk.count <= 2 * Self.chunkSize {
                rebuilt.append(chunk)
            } else {
                var index = 0
                while index < chunk.count {
                    let end = min(index + Self.chunkSize, chunk.count)
                    rebuilt.append(Array(chunk[index..<end]))
                    index = end
                }
            }
        }
        chunks = rebuilt
        renumber()
        return (deletions, insertions, modifications)
    }
}
