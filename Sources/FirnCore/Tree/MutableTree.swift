/// A B+ tree inside a write transaction: the catalog, the space tree and
/// every named tree are one of these. Changed nodes live in memory; the
/// rest is read from the base version's pages. `write` stores the changed
/// nodes bottom-up at commit, so each parent records its children's
/// checksums (the Merkle property).
///
/// Like its nodes, a tree belongs to one write transaction driven by one
/// thread at a time: its stored properties skip the runtime exclusivity check.
final class MutableTree {
    @exclusivity(unchecked) private(set) var root: Child?
    @exclusivity(unchecked) private(set) var count: UInt64
    /// Changed since the transaction began (its catalog entry must be rewritten).
    @exclusivity(unchecked) private(set) var changed = false
    /// The path of the last descent (branches and the child taken), reused
    /// so a put allocates nothing.
    @exclusivity(unchecked) private var path: [(Node, Int)] = []
    /// The tree's rightmost leaf, when the last put appended to it there
    /// (every branch on its path at its last child, no split since): a put
    /// of a key past its last key goes straight in, so a sorted replay
    /// (a commit log's checkpoint, an ascending load) descends once per
    /// leaf, not once per key. Cleared by any other change of shape and
    /// by writing the tree (its nodes are sealed then).
    @exclusivity(unchecked) private var appendLeaf: Node?
    unowned let context: WriteContext
    /// Which of this tree's pages most commits rewrite, and so go to runs
    /// (`PageAllocator.Kind`); the others live on and fill holes.
    enum Churn {
        /// Named trees: the branches (every change rewrites the root);
        /// leaves live on for many commits.
        case branches
        /// The catalog and the space tree: the rightmost path. A small
        /// commit's space entries (newest history, free list, retired
        /// batches) sort last; the leaves to the left hold older history,
        /// and a split's left half stays for hundreds of commits — in a
        /// run it would cut it.
        case rightEdge
    }
    let churn: Churn

    init(root: PageRef, count: UInt64, context: WriteContext, churn: Churn = .rightEdge) {
        self.root = root.isNone ? nil : .page(root)
        self.count = count
        self.context = context
        self.churn = churn
    }

    private var capacity: Int { context.geometry.capacity }

    // MARK: reading

    /// The value stored under `key`, read through memory or the map. Inline
    /// bytes point into a node or the map: valid until the tree next changes.
    func get(_ key: UnsafeRawBufferPointer) throws(FirnError) -> StoredValue? {
        guard var child = root else { return nil }
        var level: Int? = nil
        while true {
            switch child {
            case let .node(node):
                if node.isLeaf {
                    let (index, found) = node.page.search(key)
                    return found ? node.page.value(index) : nil
                }
                child = node.children[node.page.childIndex(for: key)]
                level = node.level - 1
            case let .page(ref):
                return try context.source.lookup(key, in: ref, level: level)
            }
        }
    }

    /// Reads a whole value, following an overflow chain on disk.
    func materialize(_ value: StoredValue) throws(FirnError) -> [UInt8] {
        try context.source.readValue(value)
    }

    // MARK: changing

    /// Stores `value` under `key`; returns true when the key is new. An
    /// overflow value's chain is already written (`WriteContext.writeOverflow`);
    /// inline bytes are copied and may not point into this tree.
    @discardableResult
    func put(_ key: UnsafeRawBufferPointer, _ value: StoredValue) throws(FirnError) -> Bool {
        changed = true
        guard root != nil else {
            let leaf = NodePage(pageSize: context.geometry.pageSize, isLeaf: true)
            leaf.insert(at: 0, key: key, value: value)
            root = .node(Node(page: leaf, level: 0))
            count = 1
            return true
        }
        if let last = appendLeaf {
            let page = last.page
            if page.count > 0, compareBytes(key, page.key(page.count - 1)) > 0 {
                let cellSize = page.leafCellSize(keyLength: key.count, value: value)
                if page.fits(cellSize) {
                    page.insert(at: page.count, key: key, value: value)
                    count += 1
                    return true
                }
            }
            appendLeaf = nil
        }
        path.removeAll(keepingCapacity: true)
        let node = try mutableLeaf(for: key, path: &path)
        let leaf = node.page
        let (index, found) = leaf.search(key)
        if found {
            try release(leaf.value(index))
            leaf.remove(at: index)
        }
        let cellSize = leaf.leafCellSize(keyLength: key.count, value: value)
        if leaf.fits(cellSize) {
            leaf.insert(at: index, key: key, value: value)
            if index == leaf.count - 1 && path.allSatisfy({ $0.1 == $0.0.page.count - 1 }) { appendLeaf = node }
        } else if index == leaf.count && path.allSatisfy({ $0.1 == $0.0.page.count - 1 }) {
            // Past the tree's last key (an ascending load, a commit log's
            // sorted replay, keys that grow with time): the full leaf stays
            // full and the key starts a new one. Halving it would leave every
            // leaf of such a load half empty, for good.
            let right = Node(page: NodePage(pageSize: context.geometry.pageSize, isLeaf: true), level: 0)
            right.page.insert(at: 0, key: key, value: value)
            addSibling(right, separator: Array(key), of: node, path: &path, appending: true)
        } else {
            // Split first, then insert into the half the key belongs to. A key
            // at the boundary goes left, so the right half's first key (the
            // separator its parent gets) stays its lowest.
            let (right, separator) = node.split(pendingSize: cellSize, at: index)
            if index <= leaf.count {
                leaf.insert(at: index, key: key, value: value)
            } else {
                right.page.insert(at: index - leaf.count, key: key, value: value)
            }
            addSibling(right, separator: separator, of: node, path: &path)
        }
        if !found { count += 1 }
        return !found
    }

    @discardableResult
    func put(_ key: [UInt8], _ value: StoredValue) throws(FirnError) -> Bool {
        try withBytes(key) { (k) throws(FirnError) in try put(k, value) }
    }

    /// Removes `key`; returns false (changing nothing) when it is absent.
    @discardableResult
    func delete(_ key: [UInt8]) throws(FirnError) -> Bool {
        guard root != nil else { return false }
        // Look before copying: a delete of a missing key must not rewrite the path.
        guard try withBytes(key, { (k) throws(FirnError) in try get(k) }) != nil else { return false }
        return try delete(sortedKeys: [key]) == nil
    }

    /// Deletes `keys`, which are ascending, with one descent per leaf they
    /// fall in rather than one per key (a reclaim deletes a batch of
    /// neighbouring retired entries every commit). Returns the index of
    /// the first key found missing (nothing after it is deleted), nil when
    /// all were deleted.
    func delete(sortedKeys keys: [[UInt8]]) throws(FirnError) -> Int? {
        appendLeaf = nil
        var i = 0
        while i < keys.count {
            guard root != nil else { return i }
            changed = true
            path.removeAll(keepingCapacity: true)
            let node = try withBytes(keys[i]) { (key) throws(FirnError) in try mutableLeaf(for: key, path: &path) }
            let leaf = node.page
            var removedHere = 0
            while i < keys.count {
                let (index, found) = keys[i].withUnsafeBytes { leaf.search($0) }
                guard found else {
                    // Past this leaf's last entry: the next descent finds
                    // the key's leaf; in this leaf's range, it is missing.
                    if index == leaf.count && removedHere > 0 { break }
                    try rebalance(node, path: &path)
                    return i
                }
                try release(leaf.value(index))
                leaf.remove(at: index)
                count = count > 0 ? count - 1 : 0  // system trees do not track counts
                removedHere += 1
                i += 1
            }
            try rebalance(node, path: &path)
        }
        return nil
    }

    /// Removes every entry, releasing every page of the tree.
    func removeAll() throws(FirnError) {
        appendLeaf = nil
        if let root { try releaseSubtree(root, level: nil) }
        root = nil
        count = 0
        changed = true
    }

    // MARK: writing

    /// Writes every changed node (children first) and returns the root's reference.
    func write() throws(FirnError) -> PageRef {
        appendLeaf = nil
        guard let root else { return .none }
        try assignPages(root, rightEdge: true)
        return try seal(root)
    }

    /// Gives every changed node its page, children first, without sealing
    /// it: the space tree's rounds only need to know which pages it takes,
    /// and sealing each round (zeroing the free space and checksumming the
    /// page) sealed its nodes two or three times a commit. `write` places
    /// the nodes the same way, then seals them.
    func assignPages() throws(FirnError) {
        appendLeaf = nil
        guard let root else { return }
        try assignPages(root, rightEdge: true)
    }

    /// `rightEdge`: the node is on the tree's rightmost path.
    private func assignPages(_ child: Child, rightEdge: Bool) throws(FirnError) {
        guard case let .node(node) = child, node.dirty || node.writtenRef == nil else { return }
        if !node.isLeaf {
            let last = node.children.count - 1
            for i in node.children.indices {
                if case .node = node.children[i] { try assignPages(node.children[i], rightEdge: rightEdge && i == last) }
            }
        }
        if node.writtenPage == nil { node.writtenPage = try context.allocate(pageKind(node, rightEdge: rightEdge)) }
    }

    /// Where a node's page should go (`PageAllocator.Kind`).
    private func pageKind(_ node: Node, rightEdge: Bool) -> PageAllocator.Kind {
        let hot = switch churn {
        case .branches: !node.isLeaf
        case .rightEdge: rightEdge
        }
        return hot ? .run : .hole
    }

    /// Seals every changed node on the page `assignPages` gave it,
    /// children first, each parent recording its children's references.
    private func seal(_ child: Child) throws(FirnError) -> PageRef {
        switch child {
        case let .page(ref):
            return ref
        case let .node(node):
            if !node.dirty, let ref = node.writtenRef { return ref }
            if !node.isLeaf {
                // A child still on disk already has its reference in the
                // cell (copied with the page); only nodes in memory need
                // sealing and their new reference stored. A small commit's
                // roots have dozens of children and change one.
                for i in node.children.indices {
                    if case .node = node.children[i] { node.page.setChild(i, try seal(node.children[i])) }
                }
            }
            guard let page = node.writtenPage else {
                throw FirnError.misuse("sealing a tree node that was given no page")
            }
            let crc = try context.writeNode(node, page: page)
            let ref = PageRef(page: page, birth: context.version, checksum: crc)
            node.writtenRef = ref
            node.dirty = false
            return ref
        }
    }

    // MARK: structure

    /// Makes the path to `key`'s leaf editable (copying its pages) and marks
    /// it changed; `path` receives each branch and the child index taken.
    private func mutableLeaf(for key: UnsafeRawBufferPointer, path: inout [(Node, Int)]) throws(FirnError) -> Node {
        var node = try mutableRoot()
        while !node.isLeaf {
            node.dirty = true
            let index = node.page.childIndex(for: key)
            let child = try mutableChild(node, index)
            path.append((node, index))
            node = child
        }
        node.dirty = true
        return node
    }

    private func mutableRoot() throws(FirnError) -> Node {
        switch root {
        case let .node(node):
            return node
        case let .page(ref):
            let node = try loadForChange(ref, level: nil)
            root = .node(node)
            return node
        case .none:
            throw FirnError.misuse("editing an empty tree's root")
        }
    }

    private func mutableChild(_ parent: Node, _ index: Int) throws(FirnError) -> Node {
        switch parent.children[index] {
        case let .node(node):
            return node
        case let .page(ref):
            let node = try loadForChange(ref, level: parent.level - 1)
            parent.children[index] = .node(node)
            return node
        }
    }

    /// Copies a page into a node to change it; its page is retired (the base
    /// version still sees it).
    private func loadForChange(_ ref: PageRef, level: Int?) throws(FirnError) -> Node {
        if let node = context.writtenNodes?.take(ref, level: level) {
            context.release(page: ref.page, birth: ref.birth)
            return node
        }
        let view = try context.source.view(ref, level: level)
        let node = try Node.load(view)
        context.release(page: ref.page, birth: ref.birth)
        return node
    }

    /// Puts `right` (split off `left`) next to it in the parent, splitting
    /// branches upward as they fill (each split before its insert); a split
    /// root gets a new root above it. `appending`: `right` is a new last leaf
    /// past the tree's last key, on a path of last children; a full branch on
    /// it then stays full and a new branch to its right takes the child, as
    /// the full leaf did. Halving it would leave every branch of an
    /// ascending load (or a commit log's sorted replay) half empty for good:
    /// twice the branch pages a lookup's cache must hold.
    private func addSibling(_ right: Node, separator: [UInt8], of left: Node, path: inout [(Node, Int)],
                            appending: Bool = false) {
        var left = left
        var right = right
        var separator = separator
        while true {
            guard let (parent, index) = path.popLast() else {
                let top = NodePage(pageSize: context.geometry.pageSize, isLeaf: false)
                top.insert(at: 0, key: UnsafeRawBufferPointer(start: nil, count: 0), child: .none)
                separator.withUnsafeBytes { top.insert(at: 1, key: $0, child: .none) }
                let node = Node(page: top, level: left.level + 1)
                node.children = [.node(left), .node(right)]
                root = .node(node)
                return
            }
            let position = index + 1
            if parent.page.fits(BranchLayout.cellHeaderSize + separator.count) {
                // The cell's reference is filled in when the parent is written.
                separator.withUnsafeBytes { parent.page.insert(at: position, key: $0, child: .none) }
                parent.children.insert(.node(right), at: position)
                return
            }
            if appending && position == parent.page.count {
                let parentRight = Node(page: NodePage(pageSize: context.geometry.pageSize, isLeaf: false), level: parent.level)
                // A branch's first cell stores no key: the separator goes up.
                parentRight.page.insert(at: 0, key: UnsafeRawBufferPointer(start: nil, count: 0), child: .none)
                parentRight.children = [.node(right)]
                left = parent
                right = parentRight
                continue
            }
            let (parentRight, parentSeparator) = parent.split(
                pendingSize: BranchLayout.cellHeaderSize + separator.count, at: position)
            let leftCount = parent.count
            let target = position <= leftCount ? parent : parentRight
            let at = position <= leftCount ? position : position - leftCount
            separator.withUnsafeBytes { target.page.insert(at: at, key: $0, child: .none) }
            target.children.insert(.node(right), at: at)
            left = parent
            right = parentRight
            separator = parentSeparator
        }
    }

    /// After a removal: merges an underfull node into a sibling when the two
    /// fit in one page, drops empty ones, and shortens the tree when the
    /// root has a single child.
    private func rebalance(_ start: Node, path: inout [(Node, Int)]) throws(FirnError) {
        var node = start
        while let (parent, index) = path.last, node.usedBytes < capacity / 4 {
            path.removeLast()
            if node.count == 0 {
                removeChild(parent, at: index)
                discard(node)
                node = parent
                continue
            }
            guard parent.children.count > 1 else {
                node = parent
                continue
            }
            let leftIndex = index > 0 ? index - 1 : index
            let left = try mutableChild(parent, leftIndex)
            let right = try mutableChild(parent, leftIndex + 1)
            // The right node's first separator is implicit; the parent knows it.
            let separator = left.isLeaf ? UnsafeRawBufferPointer(start: nil, count: 0) : parent.page.key(leftIndex + 1)
            guard left.usedBytes + right.usedBytes + separator.count <= capacity else {
                node = parent
                continue
            }
            left.dirty = true
            left.page.append(from: right.page, range: 0..<right.count, firstKey: left.isLeaf ? nil : separator)
            left.children.append(contentsOf: right.children)
            removeChild(parent, at: leftIndex + 1)
            discard(right)
            node = parent
        }
        // Collapse the root.
        while case let .node(top)? = root {
            if top.isLeaf {
                if top.count == 0 {
                    discard(top)
                    root = nil
                }
                return
            }
            if top.children.count == 1 {
                discard(top)
                root = top.children[0]
                continue
            }
            if top.children.isEmpty {
                discard(top)
                root = nil
            }
            return
        }
    }

    private func removeChild(_ parent: Node, at index: Int) {
        parent.dirty = true
        parent.page.remove(at: index)
        parent.children.remove(at: index)
    }

    /// A node leaving the tree: a page it was written to in this transaction
    /// is free again.
    private func discard(_ node: Node) {
        if let page = node.writtenPage {
            context.recycle(page)
            node.writtenPage = nil
        }
    }

    private func release(_ value: StoredValue) throws(FirnError) {
        if case let .overflow(head, length) = value {
            try context.releaseOverflow(head, length: length)
        }
    }

    private func releaseSubtree(_ child: Child, level: Int?) throws(FirnError) {
        switch child {
        case let .node(node):
            discard(node)
            if node.isLeaf {
                for i in 0..<node.count { try release(node.page.value(i)) }
            } else {
                for c in node.children { try releaseSubtree(c, level: node.level - 1) }
            }
        case let .page(ref):
            let view = try context.source.view(ref, level: level)
            try view.checkTreePage(expectLeaf: nil)
            context.release(page: ref.page, birth: ref.birth)
            if view.typeByte == PageType.leaf.rawValue {
                for i in 0..<view.count { try release(try view.leafCell(i).value) }
            } else {
                for i in 0..<view.count {
                    try releaseSubtree(.page(try view.branchChild(i)), level: view.level - 1)
                }
            }
        }
    }
}
