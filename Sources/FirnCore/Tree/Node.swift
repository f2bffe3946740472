/// A B+ tree node being changed by a write transaction: decoded from its
/// page on first change, edited in memory, and written to a fresh page at
/// commit (copy-on-write). Nodes are split and merged as they are edited,
/// so each always fits in one page.
final class Node {
    /// 0 for leaves; height above the leaves for branches.
    let level: Int
    var entries: [LeafEntry] = []  // leaves
    var keys: [[UInt8]] = []  // branches: separator i bounds child i from below; keys[0] is unused
    var children: [Child] = []  // branches
    /// Serialized size of the cells and their offset slots (header excluded).
    var cellBytes = 0
    /// Pages born in this transaction that hold this node's last write; a
    /// rewrite reuses them instead of allocating.
    var writtenPage: UInt64?
    /// The reference to this node's current page image, valid while `dirty` is false.
    var writtenRef: PageRef?
    /// Changed since it was last written.
    var dirty = true

    var isLeaf: Bool { level == 0 }
    var count: Int { isLeaf ? entries.count : children.count }

    init(level: Int) {
        self.level = level
    }

    static func leafFootprint(_ entry: LeafEntry) -> Int {
        LeafLayout.footprint(keyLength: entry.key.count, value: entry.value)
    }

    static func branchFootprint(_ key: [UInt8]) -> Int {
        BranchLayout.footprint(keyLength: key.count)
    }

    /// The lowest key under this node (for separators after a split).
    var firstKey: [UInt8] { isLeaf ? (entries.first?.key ?? []) : (keys.first ?? []) }

    /// Decodes a leaf or branch page into a node.
    static func load(_ view: PageView) throws(FirnError) -> Node {
        try view.checkTreePage(expectLeaf: nil)
        let node = Node(level: view.level)
        let n = view.count
        if view.typeByte == PageType.leaf.rawValue {
            if view.level != 0 { throw view.corrupt("leaf page with level \(view.level)") }
            node.entries.reserveCapacity(n + 1)
            for i in 0..<n {
                let cell = try view.leafCell(i)
                let value: LeafValue
                switch cell.value {
                case let .inline(bytes): value = .inline(Array(bytes))
                case let .overflow(ref, length): value = .overflow(ref, length: length)
                }
                let entry = LeafEntry(key: Array(cell.key), value: value)
                node.cellBytes += leafFootprint(entry)
                node.entries.append(entry)
            }
        } else {
            if view.level == 0 { throw view.corrupt("branch page with level 0") }
            node.keys.reserveCapacity(n + 1)
            node.children.reserveCapacity(n + 1)
            for i in 0..<n {
                let key = i == 0 ? [] : Array(try view.branchKey(i))
                node.keys.append(key)
                node.children.append(.page(try view.branchChild(i)))
                node.cellBytes += branchFootprint(key)
            }
        }
        return node
    }

    // MARK: splitting

    /// Splits an overfull node in two at the byte midpoint; returns the new
    /// right half (this node keeps the left). Cells are at most a third of a
    /// page, so both halves fit.
    func splitHalf() -> Node {
        let right = Node(level: level)
        let target = cellBytes / 2
        var leftBytes = 0
        var cut = 0
        if isLeaf {
            while cut < entries.count - 1 {
                let size = Node.leafFootprint(entries[cut])
                if leftBytes + size > target && cut > 0 { break }
                leftBytes += size
                cut += 1
            }
            right.entries = Array(entries[cut...])
            entries.removeSubrange(cut...)
        } else {
            while cut < keys.count - 1 {
                let size = Node.branchFootprint(keys[cut])
                if leftBytes + size > target && cut > 0 { break }
                leftBytes += size
                cut += 1
            }
            right.keys = Array(keys[cut...])
            right.children = Array(children[cut...])
            keys.removeSubrange(cut...)
            children.removeSubrange(cut...)
        }
        right.cellBytes = cellBytes - leftBytes
        cellBytes = leftBytes
        return right
    }
}

/// A child of a branch node: still on disk, or loaded and being changed.
enum Child {
    case page(PageRef)
    case node(Node)
}

/// A key and its value in a leaf node.
struct LeafEntry {
    var key: [UInt8]
    var value: LeafValue
}

/// A value in a leaf node.
enum LeafValue {
    case inline([UInt8])
    /// An overflow chain already on disk.
    case overflow(PageRef, length: UInt64)
    /// A large value written to an overflow chain at commit.
    case pending([UInt8])

    /// Bytes the value takes in the leaf cell.
    var storedLength: Int {
        switch self {
        case let .inline(bytes): bytes.count
        case .overflow, .pending: PageRef.size + 8
        }
    }

    var length: UInt64 {
        switch self {
        case let .inline(bytes): UInt64(bytes.count)
        case let .overflow(_, length): length
        case let .pending(bytes): UInt64(bytes.count)
        }
    }
}
