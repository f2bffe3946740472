import CFirnShims

/// A position in a B+ tree, for ordered walks: seek, first, last, next and
/// previous. It reads pages through the map and, inside a write
/// transaction, the transaction's changed nodes. A cursor over a write
/// transaction's tree is valid until the tree next changes.
struct TreeCursor {
    private enum Frame {
        case node(Node, Int)
        case page(PageView, Int)

        var index: Int {
            switch self {
            case let .node(_, i), let .page(_, i): i
            }
        }
        var count: Int {
            switch self {
            case let .node(n, _): n.count
            case let .page(v, _): v.count
            }
        }
        func with(index: Int) -> Frame {
            switch self {
            case let .node(n, _): .node(n, index)
            case let .page(v, _): .page(v, index)
            }
        }
    }

    private let source: PageSource
    private let root: Child?
    private var stack: [Frame] = []
    // The fast path of a scan: when the top frame is a leaf page, its view
    // and position live here and the frame's index is brought up to date
    // only when the stack is next used (`sync`).
    private var leaf: PageView?
    private var leafIndex = 0
    private var leafCount = 0

    init(source: PageSource, root: Child?) {
        self.source = source
        self.root = root
    }

    init(source: PageSource, rootRef: PageRef) {
        self.init(source: source, root: rootRef.isNone ? nil : .page(rootRef))
    }

    /// True when positioned on an entry.
    @inline(__always)
    var isValid: Bool {
        if leaf != nil { return leafIndex >= 0 && leafIndex < leafCount }
        guard let top = stack.last else { return false }
        return top.index >= 0 && top.index < top.count
    }

    /// Writes the fast path's position back into the stack.
    @inline(__always)
    private mutating func sync() {
        guard leaf != nil else { return }
        let last = stack.count - 1
        if last >= 0 { stack[last] = stack[last].with(index: leafIndex) }
        leaf = nil
    }

    /// Takes the fast path when the top frame is a leaf page.
    @inline(__always)
    private mutating func cacheTop() {
        if case let .page(view, index)? = stack.last, view.typeByte == PageType.leaf.rawValue {
            leaf = view
            leafIndex = index
            leafCount = view.count
        } else {
            leaf = nil
        }
    }

    // MARK: positioning

    /// Moves to the first entry whose key is >= `key`.
    mutating func seek(_ key: UnsafeRawBufferPointer) throws(FirnError) {
        leaf = nil
        defer { cacheTop() }
        stack.removeAll(keepingCapacity: true)
        guard var child = root else { return }
        var level: Int? = nil
        while true {
            let frame = try open(child, level: level)
            switch frame {
            case let .node(node, _):
                if node.isLeaf {
                    let (i, _) = node.page.search(key)
                    stack.append(.node(node, i))
                    return try settleForward()
                }
                let i = node.page.childIndex(for: key)
                stack.append(.node(node, i))
                child = node.children[i]
                level = node.level - 1
            case let .page(view, _):
                if view.typeByte == PageType.leaf.rawValue {
                    let (i, _) = try view.leafSearch(key)
                    stack.append(.page(view, i))
                    return try settleForward()
                }
                let i = try view.branchSearch(key)
                stack.append(.page(view, i))
                child = .page(try view.branchChild(i))
                level = view.level - 1
            }
        }
    }

    mutating func seek(_ key: [UInt8]) throws(FirnError) {
        try withBytes(key) { (k) throws(FirnError) in try seek(k) }
    }

    mutating func first() throws(FirnError) {
        leaf = nil
        defer { cacheTop() }
        stack.removeAll(keepingCapacity: true)
        guard let root else { return }
        try descend(root, level: nil, toLast: false)
        try settleForward()
    }

    mutating func last() throws(FirnError) {
        leaf = nil
        defer { cacheTop() }
        stack.removeAll(keepingCapacity: true)
        guard let root else { return }
        try descend(root, level: nil, toLast: true)
        try settleBackward()
    }

    mutating func next() throws(FirnError) {
        if leaf != nil {
            leafIndex += 1
            if leafIndex < leafCount { return }
            sync()
            defer { cacheTop() }
            return try settleForward()
        }
        defer { cacheTop() }
        let last = stack.count - 1
        guard last >= 0 else { return }
        // Step within the leaf in place; climb only past its end.
        let moved = stack[last].with(index: stack[last].index + 1)
        stack[last] = moved
        if moved.index < moved.count { return }
        try settleForward()
    }

    mutating func previous() throws(FirnError) {
        sync()
        defer { cacheTop() }
        guard let top = stack.popLast() else { return }
        stack.append(top.with(index: top.index - 1))
        try settleBackward()
    }

    // MARK: reading

    // Inlined: called on a cursor kept in a class (`Cursor`), a call out of
    // line copied the whole struct first, retaining the page source every
    // thread reading the snapshot shares.
    @inline(__always)
    func withKey<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(FirnError) -> R? {
        if let leaf { return leafIndex < leafCount && leafIndex >= 0 ? body(try leaf.leafKey(leafIndex)) : nil }
        guard isValid, let top = stack.last else { return nil }
        switch top {
        case let .node(node, i): return body(node.page.key(i))
        case let .page(view, i): return body(try view.leafKey(i))
        }
    }

    var key: [UInt8]? {
        @inline(__always) get throws(FirnError) { try withKey { Array($0) } }
    }

    /// The page holding the current entry; nil when not on an entry or the
    /// entry is in a write transaction's changed node.
    var currentPage: UInt64? {
        if let leaf { return leafIndex < leafCount && leafIndex >= 0 ? leaf.number : nil }
        guard isValid, case let .page(view, _)? = stack.last else { return nil }
        return view.number
    }

    /// The current entry's value as stored (inline bytes point into the page
    /// or the node: valid until the cursor moves or the tree changes).
    @inline(__always)
    func storedValue() throws(FirnError) -> StoredValue? {
        if let leaf { return leafIndex < leafCount && leafIndex >= 0 ? try leaf.leafCell(leafIndex).value : nil }
        guard isValid, let top = stack.last else { return nil }
        switch top {
        case let .node(node, i): return node.page.value(i)
        case let .page(view, i): return try view.leafCell(i).value
        }
    }

    /// `body` with the current entry's key and stored value (both valid
    /// until the cursor moves or the tree changes); nil when not on an entry.
    /// One cell read for both, where `withKey` then `storedValue` read it twice.
    @inline(__always)
    func withEntry<R>(_ body: (UnsafeRawBufferPointer, StoredValue) throws(FirnError) -> R) throws(FirnError) -> R? {
        if let leaf {
            guard leafIndex < leafCount && leafIndex >= 0 else { return nil }
            let cell = try leaf.leafCell(leafIndex)
            return try body(cell.key, cell.value)
        }
        guard isValid, let top = stack.last else { return nil }
        switch top {
        case let .node(node, i): return try body(node.page.key(i), node.page.value(i))
        case let .page(view, i):
            let cell = try view.leafCell(i)
            return try body(cell.key, cell.value)
        }
    }

    /// Calls `body` with the current entry and each following one on the
    /// same leaf page (key, whole value, and whether the value's bytes are
    /// the page's own rather than an overflow chain assembled for the call):
    /// false when `body` stopped (the cursor stays on that entry); true when
    /// the page's entries ended, the cursor on its last one (`next()` moves
    /// on). Nil when the cursor is not on a leaf page's entry (a write
    /// transaction's changed node): step with `withEntry` and `next()`.
    /// A scan's inner loop: one page's cells without a call per step.
    @inline(__always)
    mutating func forEachInLeaf(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws(FirnError) -> Bool) throws(FirnError) -> Bool? {
        guard let leaf, leafIndex >= 0, leafIndex < leafCount else { return nil }
        let base = leaf.base, pageSize = leaf.pageSize
        let cellsStart = PageHeader.size + 2 * leafCount
        // The cell a few ahead is asked into the caches while this one is
        // read (its offset is in the page's cell table, read in order): the
        // first read of each cell was the scan's largest stall (perf); a
        // count over 1M records took 7-9% less CPU time with it
        // (firn-sdk-probe count and sum, 3 rounds alternating builds).
        let ahead = 4
        for i in leafIndex..<min(leafIndex + ahead, leafCount) { firn_prefetch(base + leaf.cellOffset(i)) }
        while leafIndex < leafCount {
            if leafIndex + ahead < leafCount { firn_prefetch(base + leaf.cellOffset(leafIndex + ahead)) }
            // `leafCell`'s checks in line for an inline value (the offset
            // past the cell table, key and value inside the page); anything
            // else (an overflow value, a defect) goes through `leafCell`.
            let offset = leaf.cellOffset(leafIndex)
            if offset >= cellsStart, offset &+ LeafLayout.cellHeaderSize <= pageSize,
               base.load(fromByteOffset: offset &+ 2, as: UInt8.self) & LeafLayout.overflowFlag == 0 {
                let keyStart = offset &+ LeafLayout.cellHeaderSize
                let keyLength = Int(base.le(UInt16.self, at: offset))
                let valueStart = keyStart &+ keyLength
                let valueLength = Int(base.le(UInt32.self, at: offset &+ 4))
                if valueStart &+ valueLength <= pageSize {
                    guard try body(UnsafeRawBufferPointer(start: base + keyStart, count: keyLength),
                                   UnsafeRawBufferPointer(start: base + valueStart, count: valueLength), true) else { return false }
                    leafIndex += 1
                    continue
                }
            }
            let cell = try leaf.leafCell(leafIndex)
            let more: Bool
            switch cell.value {
            case let .inline(bytes): more = try body(cell.key, bytes, true)
            case .overflow:
                more = try source.readValue(cell.value).withUnsafeBytes { value in
                    Result { () throws(FirnError) in try body(cell.key, value, false) }
                }.get()
            }
            guard more else { return false }
            leafIndex += 1
        }
        leafIndex = leafCount - 1
        return true
    }

    /// The current entry's whole value, overflow chains followed.
    func value() throws(FirnError) -> [UInt8]? {
        guard let stored = try storedValue() else { return nil }
        return try source.readValue(stored)
    }

    // MARK: internals

    private func open(_ child: Child, level: Int?) throws(FirnError) -> Frame {
        switch child {
        case let .node(node):
            return .node(node, 0)
        case let .page(ref):
            let view = try source.view(ref, level: level)
            try view.checkTreePage(expectLeaf: nil)
            if view.typeByte == PageType.leaf.rawValue && view.level != 0 {
                throw view.corrupt("leaf page with level \(view.level)")
            }
            return .page(view, 0)
        }
    }

    private func childOf(_ frame: Frame) throws(FirnError) -> (Child, Int)? {
        switch frame {
        case let .node(node, i):
            guard !node.isLeaf else { return nil }
            return (node.children[i], node.level - 1)
        case let .page(view, i):
            guard view.typeByte == PageType.branch.rawValue else { return nil }
            return (.page(try view.branchChild(i)), view.level - 1)
        }
    }

    private mutating func descend(_ start: Child, level: Int?, toLast: Bool) throws(FirnError) {
        var child = start
        var level = level
        while true {
            var frame = try open(child, level: level)
            if toLast { frame = frame.with(index: frame.count - 1) }
            stack.append(frame)
            guard let (next, nextLevel) = try childOf(frame) else { return }
            child = next
            level = nextLevel
        }
    }

    /// Past the end of a leaf: climb to the next branch entry and go down its left edge.
    private mutating func settleForward() throws(FirnError) {
        while let top = stack.last, top.index >= top.count {
            stack.removeLast()
            guard let parent = stack.popLast() else { return }
            let moved = parent.with(index: parent.index + 1)
            stack.append(moved)
            if moved.index < moved.count, let (child, level) = try childOf(moved) {
                subtreesEnteredForward &+= 1
                try descend(child, level: level, toLast: false)
                prefetchSibling(after: moved)
            }
        }
    }

    /// The start of the page after `frame`'s current child (its header and
    /// cell table), asked into the caches while this child is walked: a
    /// forward scan's first read of each leaf was a stall per leaf. Only a
    /// hint: nothing is read, and a prefetch never faults.
    @inline(__always)
    private func prefetchSibling(after frame: Frame) {
        guard case let .page(view, i) = frame, i &+ 1 < view.count, view.typeByte == PageType.branch.rawValue,
              let next = try? view.branchChild(i &+ 1), next.page < source.pageLimit else { return }
        let start = source.map.base + Int(next.page) &* source.pageSize
        for line in 0..<4 { firn_prefetch(start + line &* 64) }
    }

    /// Subtrees (leaves, mostly) a forward walk has entered: a scan's
    /// progress in pages, for bounding what it keeps resident.
    private(set) var subtreesEnteredForward = 0

    /// Drops the process's page-table entries of the map this cursor reads
    /// (`Mapping.dropResidentPages`); pointers stay valid.
    func dropResidentPages() { source.map.dropResidentPages() }

    /// An overflow value's bytes, read through the cursor's source.
    func readOverflow(_ head: PageRef, length: UInt64) throws(FirnError) -> [UInt8] {
        try source.readOverflow(head, length: length)
    }

    var pageSize: Int { source.pageSize }

    private mutating func settleBackward() throws(FirnError) {
        while let top = stack.last, top.index < 0 {
            stack.removeLast()
            guard let parent = stack.popLast() else { return }
            let moved = parent.with(index: parent.index - 1)
            stack.append(moved)
            if moved.index >= 0, let (child, level) = try childOf(moved) {
                try descend(child, level: level, toLast: true)
            }
        }
    }
}
