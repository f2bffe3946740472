/// A B+ tree node being changed by a write transaction: copied from its
/// page on first change, edited in place in its page layout (`NodePage`),
/// and written to a fresh page at commit (copy-on-write). Nodes are split
/// and merged as they are edited, so each always fits in one page. A
/// branch also keeps its children, since they may be nodes in memory; the
/// references in its cells are brought up to date when it is written.
///
/// A node belongs to one write transaction, which one thread drives at a
/// time, so its stored properties skip the runtime exclusivity check.
final class Node {
    /// 0 for leaves; height above the leaves for branches.
    let level: Int
    let page: NodePage
    /// Branches: child i, parallel to the page's cells.
    @exclusivity(unchecked) var children: [Child] = []
    /// The page born in this transaction that holds this node's last write;
    /// a rewrite reuses it instead of allocating.
    @exclusivity(unchecked) var writtenPage: UInt64?
    /// The reference to this node's current page image, valid while `dirty` is false.
    @exclusivity(unchecked) var writtenRef: PageRef?
    /// Changed since it was last written.
    @exclusivity(unchecked) var dirty = true

    var isLeaf: Bool { level == 0 }
    var count: Int { page.count }
    var usedBytes: Int { page.usedBytes }

    init(page: NodePage, level: Int) {
        self.page = page
        self.level = level
    }

    /// A fresh node with a copy of `other`'s page as last written, its
    /// children as that image references them: how a commit's written
    /// nodes seed the next transaction (`WrittenNodes`).
    init(cloning other: Node) {
        level = other.level
        page = NodePage(cloning: other.page)
        if level > 0 { children = (0..<page.count).map { .page(page.child($0)) } }
    }

    /// Copies a leaf or branch page into a node.
    static func load(_ view: PageView) throws(FirnError) -> Node {
        try view.checkTreePage(expectLeaf: nil)
        let isLeaf = view.typeByte == PageType.leaf.rawValue
        if isLeaf != (view.level == 0) {
            throw view.corrupt("\(isLeaf ? "leaf" : "branch") page with level \(view.level)")
        }
        let node = Node(page: try NodePage(copying: view), level: view.level)
        if !isLeaf {
            node.children = (0..<node.page.count).map { .page(node.page.child($0)) }
        }
        return node
    }

    /// Moves the upper half of this node into a new node, making room for a
    /// cell of `pendingSize` bytes to be inserted at `pendingIndex` (see
    /// `NodePage.splitOffUpperHalf`); returns the new node and the
    /// separator its parent needs for it.
    func split(pendingSize: Int, at pendingIndex: Int) -> (right: Node, separator: [UInt8]) {
        let (rightPage, separator) = page.splitOffUpperHalf(pendingSize: pendingSize, at: pendingIndex)
        let right = Node(page: rightPage, level: level)
        if !isLeaf {
            let cut = page.count
            right.children = Array(children[cut...])
            children.removeSubrange(cut...)
        }
        return (right, separator)
    }
}

/// A child of a branch node: still on disk, or loaded and being changed.
enum Child {
    case page(PageRef)
    case node(Node)
}
