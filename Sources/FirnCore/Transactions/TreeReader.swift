/// A named tree in a snapshot: point lookups and ordered cursors over the
/// version's pages, without copying.
public struct TreeReader: Sendable {
    public let name: String
    /// The tree's root and count. For a version between checkpoints, the
    /// root is the checkpoint's tree (none after a reset) and the count the
    /// version's own.
    package let entry: CatalogEntry
    package let snapshot: Snapshot
    /// The commit log's entries over the checkpoint's tree, for a version
    /// between checkpoints whose frames touched it.
    let log: LogLayer?

    /// A tree's log entries at a version, and whether the checkpoint's tree
    /// shows through them.
    struct LogLayer: @unchecked Sendable {
        let link: LogOverlayVersion
        let tree: String
        var showsBase: Bool

        /// The entries in one run (built once per version, for cursors and diffs).
        var entries: [LogEntry] { link.entries(of: tree) }

        func entry(for key: UnsafeRawBufferPointer) -> LogEntry? { link.entry(of: tree, for: key) }
    }

    init(name: String, entry: CatalogEntry, snapshot: Snapshot, log: LogLayer? = nil) {
        self.name = name
        self.entry = entry
        self.snapshot = snapshot
        self.log = log
    }

    public var count: UInt64 { entry.count }
    var source: PageSource { snapshot.source }

    /// The value under `key`: inline values point into the map (zero-copy);
    /// values in overflow chains are assembled once.
    public func get(_ key: UnsafeRawBufferPointer) throws(FirnError) -> Value? {
        do {
            switch try storedValue(key) {
            case nil:
                return nil
            case let .inline(bytes)?:
                return Value(bytes: bytes, owner: snapshot)
            case let .overflow(head, length)?:
                return Value(copying: try source.readOverflow(head, length: length), owner: snapshot)
            }
        } catch {
            throw error.located(in: snapshot.store.path, version: snapshot.version).inTree(name)
        }
    }

    /// The value under `key` as stored: a log entry's bytes in its frame,
    /// else the checkpoint's leaf cell.
    func storedValue(_ key: UnsafeRawBufferPointer) throws(FirnError) -> StoredValue? {
        if let log {
            if let logged = log.entry(for: key) { return logged.value.map { .inline($0) } }
            if !log.showsBase { return nil }
        }
        guard !entry.root.isNone else { return nil }
        return try source.lookup(key, in: entry.root)
    }

    public func get(_ key: [UInt8]) throws(FirnError) -> Value? {
        try withBytes(key) { (k) throws(FirnError) in try get(k) }
    }

    public func contains(_ key: [UInt8]) throws(FirnError) -> Bool { try get(key) != nil }

    /// A cursor positioned before the first entry (call `first()` or `seek`).
    public func cursor() -> Cursor {
        let base = TreeCursor(source: source, rootRef: entry.root)
        if let log {
            return Cursor(LogMergeCursor(base: base, entries: log.entries, showsBase: log.showsBase),
                          owner: snapshot, path: snapshot.store.path, tree: name, version: snapshot.version)
        }
        return Cursor(base, owner: snapshot, path: snapshot.store.path, tree: name, version: snapshot.version)
    }

    /// Height of the checkpoint's tree: 0 when empty, 1 for a single leaf.
    public func depth() throws(FirnError) -> Int {
        guard !entry.root.isNone else { return 0 }
        return try source.view(entry.root).level + 1
    }
}

/// Bytes of a value. Inline values point into the snapshot's map and stay
/// valid while the snapshot lives (the value keeps it alive).
public struct Value: @unchecked Sendable {
    public let bytes: UnsafeRawBufferPointer
    private let owner: AnyObject

    init(bytes: UnsafeRawBufferPointer, owner: AnyObject) {
        self.bytes = bytes
        self.owner = owner
    }

    init(copying array: [UInt8], owner: AnyObject) {
        let box = OwnedBytes(array)
        bytes = box.buffer
        self.owner = box
        _ = owner
    }

    public var array: [UInt8] { Array(bytes) }
    public var count: Int { bytes.count }
}

/// Heap bytes that a `Value` keeps alive.
final class OwnedBytes {
    let buffer: UnsafeRawBufferPointer
    init(_ array: [UInt8]) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(array.count, 1), alignment: 8)
        array.withUnsafeBytes { storage.copyMemory(from: $0) }
        buffer = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<array.count])
    }
    deinit { UnsafeMutableRawPointer(mutating: buffer.baseAddress)?.deallocate() }
}

/// An ordered walk over a tree: `first`, `last`, `seek`, `next`, `previous`.
/// Methods call the core directly (no closures) so a scan from another
/// module costs little more than the page walk itself.
public final class Cursor {
    // Every access to `core` is short and none overlaps another (no caller's
    // closure runs while one is open), and a cursor is used by one thread at
    // a time: the runtime exclusivity check, a large share of a step, is off.
    @exclusivity(unchecked) private var core: TreeCursor
    /// Set for a tree of a version between checkpoints: the walk merges the
    /// log's entries over the checkpoint's tree, and `core` is not used.
    @exclusivity(unchecked) private var merge: LogMergeCursor?
    /// `merge != nil`, fixed when the cursor is made and tested first on
    /// every step: testing the optional itself called an outlined copy of
    /// the merge cursor each time (1 % of iterating objects, even with no merge).
    private let merges: Bool
    private let owner: AnyObject
    private let path: String
    /// The tree walked and the version read, named in a corrupt page's
    /// error (file, page, tree and version), when known.
    private let tree: String?
    private let version: UInt64?
    /// The cursor reads a snapshot, whose pages never change while it lives.
    private let readsSnapshot: Bool

    init(_ core: TreeCursor, merge: LogMergeCursor? = nil, owner: AnyObject, path: String, tree: String? = nil, version: UInt64? = nil) {
        self.core = core
        self.merge = merge
        merges = merge != nil
        self.owner = owner
        self.path = path
        self.tree = tree
        self.version = version
        readsSnapshot = owner is Snapshot
        residencyPages = max(1, Int(Mapping.residencyBudget) / max(1, core.pageSize))
    }

    convenience init(_ merge: LogMergeCursor, owner: AnyObject, path: String, tree: String? = nil, version: UInt64? = nil) {
        self.init(merge.base, merge: merge, owner: owner, path: path, tree: tree, version: version)
    }

    private func locate(_ error: FirnError) -> FirnError {
        let located = error.located(in: path, version: version)
        return tree.map { located.inTree($0) } ?? located
    }

    /// Runs `body` on the cursor in place. A read through the stored
    /// property (`core.key`) copied the whole struct first, retaining its
    /// page source, root and stack, on every step of a scan.
    @inline(__always)
    private static func borrow<R, E: Error>(_ core: inout TreeCursor, _ body: (inout TreeCursor) throws(E) -> R) throws(E) -> R {
        try body(&core)
    }

    public var isValid: Bool {
        if merges, let merge { return merge.isValid }
        return Self.borrow(&core) { $0.isValid }
    }

    public func first() throws(FirnError) {
        do {
            if merges { try merge?.first() } else { try core.first() }
        } catch { throw locate(error) }
    }

    public func last() throws(FirnError) {
        do {
            if merges { try merge?.last() } else { try core.last() }
        } catch { throw locate(error) }
    }

    public func next() throws(FirnError) {
        let entered: Int
        do {
            if merges {
                try merge?.next()
                entered = merge?.subtreesEnteredForward ?? 0
            } else {
                try core.next()
                entered = core.subtreesEnteredForward
            }
        } catch { throw locate(error) }
        // A scan over a snapshot touches every page of the tree through
        // the map, and touched file pages count in the resident set: drop
        // them every few MiB, as verify and export do, so iterating a big
        // tree (a million objects) keeps memory flat. Pointers stay valid.
        // (A merged walk's checkpoint cursor reads the same map as `core`.)
        if readsSnapshot, !keepsResidentPages, entered >= nextResidencyDrop {
            nextResidencyDrop = entered + residencyPages
            if entered >= residencyPages { core.dropResidentPages() }
        }
    }

    /// True for a scan whose caller keeps the records it visits (a query
    /// iterated or sorted reads them again afterwards): its pages are not
    /// dropped as it goes. Reading the kept records mapped them all again
    /// (each fault maps the pages around it), so the drops bought no memory
    /// and cost their unmapping and faults: ~20% of a range query's CPU
    /// (perf, firn-sdk-probe range).
    /// (Unchecked, like `core`: a cursor is used by one thread at a time,
    /// and the run-time exclusivity check was 1 % of iterating objects.)
    @exclusivity(unchecked) package var keepsResidentPages = false

    /// `Mapping.residencyBudget` in pages, and when the walk next drops them.
    private let residencyPages: Int
    @exclusivity(unchecked) private var nextResidencyDrop = 0

    public func previous() throws(FirnError) {
        do {
            if merges { try merge?.previous() } else { try core.previous() }
        } catch { throw locate(error) }
    }

    /// Moves to the first entry whose key is at or after `key`.
    public func seek(_ key: [UInt8]) throws(FirnError) {
        do {
            if merges { try merge?.seek(key) } else { try core.seek(key) }
        } catch { throw locate(error) }
    }

    /// The current key (a copy), nil when not on an entry.
    public var key: [UInt8]? {
        get throws(FirnError) {
            do {
                if merges, let merge { return try merge.key }
                return try Self.borrow(&core) { (c) throws(FirnError) in try c.key }
            } catch { throw locate(error) }
        }
    }

    /// The current value, overflow chains followed.
    public var value: [UInt8]? {
        get throws(FirnError) {
            do {
                if merges, let merge { return try merge.value() }
                return try Self.borrow(&core) { (c) throws(FirnError) in try c.value() }
            } catch { throw locate(error) }
        }
    }

    /// Copies the current key into `buffer` when it fits; returns the
    /// key's length either way (nil when not on an entry). Not generic, so
    /// a caller in another module gets no unspecialized closure call per
    /// step (an iteration makes a key for every object).
    public func copyKey(into buffer: UnsafeMutableRawBufferPointer) throws(FirnError) -> Int? {
        do {
            if merges, let merge {
                return try merge.withKey { key in
                    if key.count <= buffer.count, let base = buffer.baseAddress, let source = key.baseAddress {
                        base.copyMemory(from: source, byteCount: key.count)
                    }
                    return key.count
                }
            }
            return try Self.borrow(&core) { (c) throws(FirnError) in try c.withKey { key in
                if key.count <= buffer.count, let base = buffer.baseAddress, let source = key.baseAddress {
                    base.copyMemory(from: source, byteCount: key.count)
                }
                return key.count
            } }
        } catch {
            throw locate(error)
        }
    }

    /// The current key without copying, valid during `body`.
    ///
    /// Inlined into the caller's module, over a non-generic read of the
    /// bytes: a generic body called from another module ran unspecialized,
    /// its result copied through value witnesses on every step (a fifth of
    /// a full scan's time, profiled).
    @inlinable
    public func withKey<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(FirnError) -> R? {
        guard let key = try currentKeyBytes() else { return nil }
        return body(key)
    }

    /// The current key's bytes in the page or the log, nil when not on an
    /// entry: valid until the cursor moves.
    @usableFromInline
    func currentKeyBytes() throws(FirnError) -> UnsafeRawBufferPointer? {
        do {
            if merges, let merge { return try merge.withKey { $0 } }
            return try Self.borrow(&core) { (c) throws(FirnError) in try c.withKey { $0 } }
        } catch { throw locate(error) }
    }

    /// The current value as a `Value`, nil when not on an entry: zero-copy
    /// when the cursor reads a snapshot and the value is inline (valid while
    /// the snapshot lives, like `TreeReader.get`'s), a copy otherwise (a
    /// write transaction's nodes change as it writes).
    public var currentValue: Value? {
        get throws(FirnError) {
            do {
                // The value keeps this cursor alive (and through it the
                // snapshot), not the snapshot directly: threads iterating
                // one snapshot at once would bounce its reference count
                // between them on every value.
                if merges, let merge {
                    if readsSnapshot, case let .inline(bytes)? = try merge.storedValue() {
                        return Value(bytes: bytes, owner: self)
                    }
                    return try merge.value().map { Value(copying: $0, owner: owner) }
                }
                if readsSnapshot, case let .inline(bytes)? = try Self.borrow(&core, { (c) throws(FirnError) in try c.storedValue() }) {
                    return Value(bytes: bytes, owner: self)
                }
                return try Self.borrow(&core) { (c) throws(FirnError) in try c.value() }.map { Value(copying: $0, owner: owner) }
            } catch {
                throw locate(error)
            }
        }
    }

    /// Calls `body` with the current entry's key and whole value, then with
    /// each following entry's, until `body` returns false (the cursor stays
    /// on that entry) or the entries end (the cursor is then not valid).
    /// Both buffers are valid during `body` only: an inline value points
    /// into its page, a value in an overflow chain is assembled first.
    /// `stable` says the value's bytes are the snapshot's own (an inline
    /// value of a snapshot), which `retainedValue` can keep beyond `body`.
    ///
    /// For an object tree, `reading` names the fields (tags, ascending) to
    /// find in each value before `body` runs: `fields[i]` is then the field
    /// tagged `reading[i]` (`ObjectRecord.fields`, every field on the way
    /// checked; a defect throws). One call for a whole scan, the record
    /// walk in the same loop as the page's cells: a query's scan stepped
    /// with `next()`, read each record through `withInlineValue`'s generic
    /// closure from another module and then walked it with another call,
    /// which together cost more than the condition on the record.
    /// `deciding`: an `IntegerScan` that rejects or tallies records before
    /// their fields are found, each record it cannot decide visited.
    package func forEachEntry(
        reading tags: UnsafeBufferPointer<Int> = UnsafeBufferPointer(start: nil, count: 0),
        into fields: UnsafeMutableBufferPointer<ObjectRecord.Field?> = UnsafeMutableBufferPointer(start: nil, count: 0),
        deciding integers: UnsafeMutablePointer<IntegerScan>? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ stable: Bool) -> Bool
    ) throws(FirnError) {
        let snapshotBytes = readsSnapshot
        let reads = !tags.isEmpty
        @inline(__always)
        func visit(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ stable: Bool) throws(FirnError) -> Bool {
            // Records `integers` rejects or tallies are not visited: no
            // fields found for them, no call of `body`.
            if let integers, integers.pointee.decide(value) != .visit { return true }
            if reads { try ObjectRecord.fields(tags, in: value, into: fields) }
            return body(key, value, stable)
        }
        while isValid {
            let more: Bool
            do {
                if merges {
                    // A version between checkpoints: the merged walk's key
                    // (copied) and value, read through its own accessors.
                    guard let key = try merge?.key, let stored = try merge?.storedValue() else { return }
                    if case let .inline(bytes) = stored {
                        more = try key.withUnsafeBytes { key in Result { () throws(FirnError) in try visit(key, bytes, snapshotBytes) } }.get()
                    } else {
                        guard let value = try merge?.value() else { return }
                        more = try Self.visit(key, value, visit)
                    }
                } else if let leafDone = try Self.borrow(&core, { (c) throws(FirnError) in
                    try c.forEachInLeaf { (key, value, inPage) throws(FirnError) in try visit(key, value, inPage && snapshotBytes) }
                }) {
                    // The rest of the leaf page in one loop; `next()` below
                    // moves past its last entry.
                    more = leafDone
                } else {
                    // One entry (a write transaction's changed node): an
                    // inline value in place, an overflow chain assembled.
                    let inline = try Self.borrow(&core) { (c) throws(FirnError) -> Bool?? in
                        try c.withEntry { (key, stored) throws(FirnError) -> Bool? in
                            if case let .inline(bytes) = stored { return try visit(key, bytes, snapshotBytes) }
                            return nil
                        }
                    }
                    guard let inline else { return }
                    if let inline {
                        more = inline
                    } else {
                        guard let key = try Self.borrow(&core, { (c) throws(FirnError) in try c.key }),
                              let value = try Self.borrow(&core, { (c) throws(FirnError) in try c.value() }) else { return }
                        more = try Self.visit(key, value, visit)
                    }
                }
            } catch {
                throw locate(error)
            }
            guard more else { return }
            // `next()`: the same step and the same release of the pages a
            // long scan touched.
            try next()
        }
    }

    /// `visit` with copies of a key and a value.
    private static func visit(_ key: [UInt8], _ value: [UInt8],
                              _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws(FirnError) -> Bool) throws(FirnError) -> Bool {
        try key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in Result { () throws(FirnError) in try visit(key, value, false) } }
        }.get()
    }

    /// `bytes`, a stable value `forEachEntry` gave, as a `Value` that keeps
    /// this cursor (and through it the snapshot) alive, as `currentValue`'s do.
    package func retainedValue(_ bytes: UnsafeRawBufferPointer) -> Value {
        Value(bytes: bytes, owner: self)
    }

    /// The current inline value without copying, valid during `body`; nil
    /// for values in overflow chains (use `value`).
    /// Inlined into the caller's module, as `withKey` is.
    @inlinable
    public func withInlineValue<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(FirnError) -> R? {
        guard let bytes = try currentInlineValueBytes() else { return nil }
        return body(bytes)
    }

    /// The current value's bytes when inline, nil otherwise: valid until
    /// the cursor moves.
    @usableFromInline
    func currentInlineValueBytes() throws(FirnError) -> UnsafeRawBufferPointer? {
        let stored: StoredValue?
        do {
            if merges, let merge { stored = try merge.storedValue() } else {
                stored = try Self.borrow(&core) { (c) throws(FirnError) in try c.storedValue() }
            }
        } catch { throw locate(error) }
        if case let .inline(bytes)? = stored { return bytes }
        return nil
    }
}
