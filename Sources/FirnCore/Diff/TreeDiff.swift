#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The difference between two versions of one B+ tree, found by walking
/// both at once and reading only where they differ.
///
/// Each version is a `DiffStream` whose head is an unread subtree or an
/// entry. Head against head:
///
/// - two subtrees with equal references (page, birth and checksum) hold
///   the same entries: both are passed over unread — this is what makes the
///   cost follow the change, since copy-on-write gives every unchanged
///   subtree the same reference in both versions;
/// - two different subtrees: the one whose lower bound is lower is opened
///   (it starts earlier, and the other may still meet its twin); with equal
///   bounds, the higher one (both when their levels are equal);
/// - a subtree against an entry: an entry below the subtree's lower bound
///   cannot be in that version (all its later keys are at or above it), so
///   it is reported without opening the subtree; otherwise the subtree is
///   opened;
/// - two entries: merged by key; equal keys are a change unless the values
///   hold the same bytes.
///
/// Values are equal when their inline bytes are, or when they are the same
/// overflow chain (same head reference and length). Two different chains
/// of the same length are compared byte by byte (their pages count as
/// read), so a value rewritten with the bytes it had is not reported, as
/// for inline values; chains of different lengths differ without a read.
struct TreeDiff {
    private var older: DiffStream
    private var newer: DiffStream
    private let olderSnapshot: Snapshot
    private let newerSnapshot: Snapshot
    private var stats = DiffStats()
    private var overflowPagesRead = 0

    init(older: Snapshot, root olderRoot: PageRef, newer: Snapshot, root newerRoot: PageRef) {
        olderSnapshot = older
        newerSnapshot = newer
        self.older = DiffStream(source: older.source, root: olderRoot, version: older.version)
        self.newer = DiffStream(source: newer.source, root: newerRoot, version: newer.version)
    }

    /// Reports each change, in key order, to `body` until it returns false.
    /// Errors from the pages carry their version but no path (the caller's).
    mutating func run(_ body: (Change) throws(FirnError) -> Bool) throws(FirnError) -> DiffStats {
        if older.root == newer.root {
            if !older.root.isNone { stats.subtreesSkipped = 1 }
            return stats
        }
        try older.start()
        try newer.start()
        stats.completed = try merge(body)
        stats.pagesRead = older.pagesRead + newer.pagesRead + overflowPagesRead
        stats.entriesRead = older.entriesRead + newer.entriesRead
        return stats
    }

    /// False when `body` stopped it.
    private mutating func merge(_ body: (Change) throws(FirnError) -> Bool) throws(FirnError) -> Bool {
        while true {
            switch (older.head, newer.head) {
            case (.end, .end):
                return true
            case let (.subtree(a, levelA, boundA), .subtree(b, levelB, boundB)):
                if a == b {
                    try older.skip()
                    try newer.skip()
                    stats.subtreesSkipped += 1
                    continue
                }
                let order = Self.compareBounds(boundA, boundB)
                if order < 0 {
                    try older.expand()
                } else if order > 0 {
                    try newer.expand()
                } else {
                    if levelA >= levelB { try older.expand() }
                    if levelB >= levelA { try newer.expand() }
                }
            case let (.subtree(_, _, bound), .entry(cell)):
                if Self.precedes(cell.key, bound) {
                    guard try report(.inserted(key: cell.key, value: newValue(cell)), body) else { return false }
                    try newer.advance()
                } else {
                    try older.expand()
                }
            case let (.entry(cell), .subtree(_, _, bound)):
                if Self.precedes(cell.key, bound) {
                    guard try report(.deleted(key: cell.key, old: oldValue(cell)), body) else { return false }
                    try older.advance()
                } else {
                    try newer.expand()
                }
            case (.subtree, .end):
                try older.expand()
            case (.end, .subtree):
                try newer.expand()
            case let (.entry(cell), .end):
                guard try report(.deleted(key: cell.key, old: oldValue(cell)), body) else { return false }
                try older.advance()
            case let (.end, .entry(cell)):
                guard try report(.inserted(key: cell.key, value: newValue(cell)), body) else { return false }
                try newer.advance()
            case let (.entry(a), .entry(b)):
                let order = compareBytes(a.key, b.key)
                if order < 0 {
                    guard try report(.deleted(key: a.key, old: oldValue(a)), body) else { return false }
                    try older.advance()
                } else if order > 0 {
                    guard try report(.inserted(key: b.key, value: newValue(b)), body) else { return false }
                    try newer.advance()
                } else {
                    if try !Self.sameValue(a.value, in: olderSnapshot, b.value, in: newerSnapshot, pagesRead: &overflowPagesRead) {
                        let change = Change.changed(key: b.key, old: oldValue(a), new: newValue(b))
                        guard try report(change, body) else { return false }
                    }
                    try older.advance()
                    try newer.advance()
                }
            }
        }
    }

    private mutating func report(_ change: Change, _ body: (Change) throws(FirnError) -> Bool) throws(FirnError) -> Bool {
        stats.changes += 1
        return try body(change)
    }

    private func oldValue(_ cell: LeafCell) -> ValueView { ValueView(stored: cell.value, snapshot: olderSnapshot) }
    private func newValue(_ cell: LeafCell) -> ValueView { ValueView(stored: cell.value, snapshot: newerSnapshot) }

    /// Orders two lower bounds; nil is the left edge of the tree, below every key.
    private static func compareBounds(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Int {
        switch (a, b) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case let (a?, b?): compareBytes(a, b)
        }
    }

    /// True when `key` lies below `bound` (never below the left edge).
    private static func precedes(_ key: UnsafeRawBufferPointer, _ bound: UnsafeRawBufferPointer?) -> Bool {
        guard let bound else { return false }
        return compareBytes(key, bound) < 0
    }

    // MARK: values

    /// Whether two stored values, `a` read from `older`'s pages and `b`
    /// from `newer`'s, hold the same bytes; overflow pages read to tell
    /// count in `pagesRead`. Also the log diffs' comparison.
    static func sameValue(_ a: StoredValue, in older: Snapshot, _ b: StoredValue, in newer: Snapshot,
                          pagesRead: inout Int) throws(FirnError) -> Bool {
        switch (a, b) {
        case let (.inline(x), .inline(y)):
            return compareBytes(x, y) == 0
        case let (.overflow(x, xLength), .overflow(y, yLength)) where x == y && xLength == yLength:
            return true  // one chain: the reference pins its bytes
        default:
            guard length(a) == length(b) else { return false }
            return try sameBytes(a, in: older, b, in: newer, pagesRead: &pagesRead)
        }
    }

    private static func length(_ value: StoredValue) -> UInt64 {
        switch value {
        case let .inline(bytes): UInt64(bytes.count)
        case let .overflow(_, length): length
        }
    }

    /// Compares two values of equal length piece by piece, reading their
    /// chains only as far as they agree.
    private static func sameBytes(_ a: StoredValue, in olderSnapshot: Snapshot, _ b: StoredValue, in newerSnapshot: Snapshot,
                                  pagesRead: inout Int) throws(FirnError) -> Bool {
        var left = ValueChunks(a, source: olderSnapshot.source)
        var right = ValueChunks(b, source: newerSnapshot.source)
        defer { pagesRead += left.pagesRead + right.pagesRead }
        var x = UnsafeRawBufferPointer(start: nil, count: 0)
        var y = UnsafeRawBufferPointer(start: nil, count: 0)
        while true {
            do {
                if x.isEmpty, let chunk = try left.nextChunk() { x = chunk }
            } catch { throw error.located(in: "", version: olderSnapshot.version) }
            do {
                if y.isEmpty, let chunk = try right.nextChunk() { y = chunk }
            } catch { throw error.located(in: "", version: newerSnapshot.version) }
            guard let px = x.baseAddress, let py = y.baseAddress, !x.isEmpty, !y.isEmpty else {
                return x.isEmpty && y.isEmpty
            }
            let n = min(x.count, y.count)
            if memcmp(px, py, n) != 0 { return false }
            x = UnsafeRawBufferPointer(rebasing: x[n...])
            y = UnsafeRawBufferPointer(rebasing: y[n...])
        }
    }
}
