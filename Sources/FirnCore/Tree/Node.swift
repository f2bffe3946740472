/// A B+ tree node being changed by a write transaction: copied from its
/// page on first change, edited in memory, and written to a fresh page at
/// commit (copy-on-write). Nodes are split and merged as they are edited,
/// so each always fits in one page. A leaf keeps its page layout
/// (`LeafBuffer`); a branch keeps its separators and children as arrays,
/// since its children may be nodes in memory.
final class Node {
    /// 0 for leaves; height above the leaves for branches.
    let level: Int
    /// The entries of a leaf; nil for branches.
    let leaf: LeafBuffer?
    var keys: [[UInt8]] = []  // branches: separator i bounds child i from below; keys[0] is unused
    var children: [Child] = []  // branches
    /// Branches: serialized size of the cells and their offset slots.
    var cellBytes = 0
    /// The page born in this transaction that holds this node's last write;
    /// a rewrite reuses it instead of allocating.
    var writtenPage: UInt64?
    /// The reference to this node's current page image, valid while `dirty` is false.
    var writtenRef: PageRef?
    /// Changed since it was last written.
    var dirty = true

    var isLeaf: Bool { level == 0 }
    var count: Int { leaf?.count ?? children.count }
    /// Bytes of cells and offsets (what must fit in a page after the header).
    var usedBytes: Int { leaf?.usedBytes ?? cellBytes }

    init(leaf: LeafBuffer) {
        level = 0
        self.leaf = leaf
    }

    init(branchLevel level: Int) {
        self.level = level
        leaf = nil
    }

    static func branchFootprint(_ key: [UInt8]) -> Int {
        BranchLayout.footprint(keyLength: key.count)
    }

    /// The lowest key under this node (the separator its parent stores).
    var firstKey: [UInt8] {
        if let leaf { return leaf.count > 0 ? Array(leaf.key(0)) : [] }
        return keys.first ?? []
    }

    /// Copies a leaf or branch page into a node.
    static func load(_ view: PageView) throws(FirnError) -> Node {
        try view.checkTreePage(expectLeaf: nil)
        if view.typeByte == PageType.leaf.rawValue {
            if view.level != 0 { throw view.corrupt("leaf page with level \(view.level)") }
            return Node(leaf: try LeafBuffer(copying: view))
        }
        if view.level == 0 { throw view.corrupt("branch page with level 0") }
        let node = Node(branchLevel: view.level)
        let n = view.count
        node.keys.reserveCapacity(n + 1)
        node.children.reserveCapacity(n + 1)
        for i in 0..<n {
            let key = i == 0 ? [] : Array(try view.branchKey(i))
            node.keys.append(key)
            node.children.append(.page(try view.branchChild(i)))
            node.cellBytes += branchFootprint(key)
        }
        return node
    }

    /// Splits an overfull branch in two at the byte midpoint; returns the new
    /// right half (this node keeps the left). Cells are at most a third of a
    /// page, so both halves fit.
    func splitBranch() -> Node {
        let right = Node(branchLevel: level)
        let target = cellBytes / 2
        var leftBytes = 0
        var cut = 0
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
        right.cellBytes = cellBytes - leftBytes
        cellBytes = leftBytes
        return right
    }

    /// Splits a full leaf; returns the new right half.
    func splitLeaf() -> Node {
        guard let leaf else { return splitBranch() }
        return Node(leaf: leaf.splitOffUpperHalf())
    }
}

/// A child of a branch node: still on disk, or loaded and being changed.
enum Child {
    case page(PageRef)
    case node(Node)
}
