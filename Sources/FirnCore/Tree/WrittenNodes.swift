/// The nodes a store's last commit wrote, kept for its next write
/// transaction. A small commit rewrites the same few pages every time —
/// the roots, the catalog leaf, the space tree's last leaf and root — and
/// copying each back from the map, cell by cell with every cell checked,
/// was a tenth of a commit's instructions (callgrind). The next
/// transaction takes a node from here instead when its parent's reference
/// names exactly the page, birth and checksum this process wrote, and only
/// when it builds on the version that commit made (`version`): then the
/// image is the page on disk, and a clone of it (one memcpy) replaces the
/// copy. The nodes themselves are not handed out: the finished
/// transaction's cursors may still read them.
struct WrittenNodes {
    /// The version whose commit wrote the nodes.
    let version: UInt64
    /// Written nodes by page; each carries the reference it was written under.
    private(set) var nodes: [UInt64: Node]

    /// At most this many nodes are kept: the top of each tree first.
    static let limit = 64

    /// Collects the written nodes of `trees`, top levels first.
    init(version: UInt64, trees: [MutableTree]) {
        self.version = version
        var nodes: [UInt64: Node] = [:]
        var queue: [Node] = []
        for tree in trees { if case let .node(root)? = tree.root { queue.append(root) } }
        var next = 0
        while next < queue.count && nodes.count < Self.limit {
            let node = queue[next]
            next += 1
            // Only nodes whose image is final: written and unchanged since.
            guard !node.dirty, let ref = node.writtenRef else { continue }
            nodes[ref.page] = node
            for child in node.children { if case let .node(c) = child { queue.append(c) } }
        }
        self.nodes = nodes
    }

    /// A copy of the node written as exactly `ref` at `level` (any level
    /// when nil), or nil. Each node is given out once.
    mutating func take(_ ref: PageRef, level: Int?) -> Node? {
        guard let node = nodes.removeValue(forKey: ref.page), node.writtenRef == ref,
              level == nil || node.level == level else { return nil }
        return Node(cloning: node)
    }
}
