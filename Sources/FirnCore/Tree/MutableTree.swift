/// A B+ tree inside a write transaction: the catalog, the space tree and
/// every named tree are one of these. Changed nodes live in memory; the
/// rest is read from the base version's pages. `write` stores the changed
/// nodes bottom-up at commit, so each parent records its children's
/// checksums (the Merkle property).
final class MutableTree {
    private(set) var root: Child?
    private(set) var count: UInt64
    /// Changed since the transaction began (its catalog entry must be rewritten).
    private(set) var changed = false
    unowned let context: WriteContext

    init(root: PageRef, count: UInt64, context: WriteContext) {
        self.root = root.isNone ? nil : .page(root)
        self.count = count
        self.context = context
    }

    private var capacity: Int { context.geometry.capacity }

    // MARK: reading

    /// The value stored under `key`, read through memory or the map.
    func get(_ key: UnsafeRawBufferPointer) throws(FirnError) -> LeafValue? {
        guard var child = root else { return nil }
        var level: Int? = nil
        while true {
            switch child {
            case let .node(node):
                if node.isLeaf {
                    let (index, found) = Self.leafSearch(node, key)
                    return found ? node.entries[index].value : nil
                }
                child = node.children[Self.branchSearch(node, key)]
                level = node.level - 1
            case let .page(ref):
                var view = try context.source.view(ref, level: level)
                try view.checkTreePage(expectLeaf: nil)
                while view.typeByte == PageType.branch.rawValue {
                    let child = try view.branchChild(try view.branchSearch(key))
                    let next = try context.source.view(child, level: view.level - 1)
                    try next.checkTreePage(expectLeaf: nil)
                    view = next
                }
                let (index, found) = try view.leafSearch(key)
                guard found else { return nil }
                switch try view.leafCell(index).value {
                case let .inline(bytes): return .inline(Array(bytes))
                case let .overflow(head, length): return .overflow(head, length: length)
                }
            }
        }
    }

    /// Reads a whole value, following an overflow chain on disk.
    func materialize(_ value: LeafValue) throws(FirnError) -> [UInt8] {
        switch value {
        case let .inline(bytes), let .pending(bytes): return bytes
        case let .overflow(head, length): return try context.source.readOverflow(head, length: length)
        }
    }

    // MARK: changing

    /// Stores `value` under `key`; returns true when the key is new.
    @discardableResult
    func put(_ key: [UInt8], _ value: LeafValue) throws(FirnError) -> Bool {
        changed = true
        guard root != nil else {
            let leaf = Node(level: 0)
            let entry = LeafEntry(key: key, value: value)
            leaf.entries = [entry]
            leaf.cellBytes = Node.leafFootprint(entry)
            root = .node(leaf)
            count = 1
            return true
        }
        var path: [(Node, Int)] = []
        var node = try mutableRoot()
        while !node.isLeaf {
            node.dirty = true
            let index = key.withUnsafeBytes { Self.branchSearch(node, $0) }
            let child = try mutableChild(node, index)
            path.append((node, index))
            node = child
        }
        node.dirty = true
        let entry = LeafEntry(key: key, value: value)
        let (index, found) = key.withUnsafeBytes { Self.leafSearch(node, $0) }
        let inserted: Bool
        if found {
            let old = node.entries[index]
            try release(old.value)
            node.cellBytes += Node.leafFootprint(entry) - Node.leafFootprint(old)
            node.entries[index] = entry
            inserted = false
        } else {
            node.entries.insert(entry, at: index)
            node.cellBytes += Node.leafFootprint(entry)
            count += 1
            inserted = true
        }
        splitUpward(node, path: &path)
        return inserted
    }

    /// Removes `key`; returns false (changing nothing) when it is absent.
    @discardableResult
    func delete(_ key: [UInt8]) throws(FirnError) -> Bool {
        guard root != nil else { return false }
        // Look before copying: a delete of a missing key must not rewrite the path.
        guard try withBytes(key, { (k) throws(FirnError) in try get(k) }) != nil else { return false }
        changed = true
        var path: [(Node, Int)] = []
        var node = try mutableRoot()
        while !node.isLeaf {
            node.dirty = true
            let index = key.withUnsafeBytes { Self.branchSearch(node, $0) }
            let child = try mutableChild(node, index)
            path.append((node, index))
            node = child
        }
        node.dirty = true
        let (index, found) = key.withUnsafeBytes { Self.leafSearch(node, $0) }
        guard found else { return false }
        let old = node.entries.remove(at: index)
        node.cellBytes -= Node.leafFootprint(old)
        try release(old.value)
        count = count > 0 ? count - 1 : 0  // system trees do not track counts
        try rebalance(node, path: &path)
        return true
    }

    /// Removes every entry, releasing every page of the tree.
    func removeAll() throws(FirnError) {
        if let root { try releaseSubtree(root, level: nil) }
        root = nil
        count = 0
        changed = true
    }

    // MARK: writing

    /// Writes every changed node (children first) and returns the root's reference.
    func write() throws(FirnError) -> PageRef {
        guard let root else { return .none }
        return try write(root)
    }

    private func write(_ child: Child) throws(FirnError) -> PageRef {
        switch child {
        case let .page(ref):
            return ref
        case let .node(node):
            if !node.dirty, let ref = node.writtenRef { return ref }
            var refs: [PageRef] = []
            if node.isLeaf {
                for i in node.entries.indices {
                    if case let .pending(bytes) = node.entries[i].value {
                        let head = try context.writeOverflow(bytes)
                        node.entries[i].value = .overflow(head, length: UInt64(bytes.count))
                    }
                }
            } else {
                refs.reserveCapacity(node.children.count)
                for i in node.children.indices {
                    let ref = try write(node.children[i])
                    refs.append(ref)
                }
            }
            let page: UInt64
            if let existing = node.writtenPage {
                page = existing
            } else {
                page = try context.allocate()
                node.writtenPage = page
            }
            let crc = try context.writeNode(node, childRefs: refs, page: page)
            let ref = PageRef(page: page, birth: context.version, checksum: crc)
            node.writtenRef = ref
            node.dirty = false
            return ref
        }
    }

    // MARK: structure

    private func mutableRoot() throws(FirnError) -> Node {
        switch root {
        case let .node(node):
            return node
        case let .page(ref):
            let node = try loadForChange(ref, level: nil)
            root = .node(node)
            return node
        case .none:
            preconditionFailure("mutableRoot on an empty tree")
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
        let view = try context.source.view(ref, level: level)
        let node = try Node.load(view)
        context.release(page: ref.page, birth: ref.birth)
        return node
    }

    private func splitUpward(_ start: Node, path: inout [(Node, Int)]) {
        var node = start
        while node.cellBytes > capacity {
            let right = node.splitHalf()
            let separator = right.firstKey
            if let (parent, index) = path.popLast() {
                parent.keys.insert(separator, at: index + 1)
                parent.children.insert(.node(right), at: index + 1)
                parent.cellBytes += Node.branchFootprint(separator)
                node = parent
            } else {
                let top = Node(level: node.level + 1)
                top.keys = [[], separator]
                top.children = [.node(node), .node(right)]
                top.cellBytes = Node.branchFootprint([]) + Node.branchFootprint(separator)
                root = .node(top)
                return
            }
        }
    }

    /// After a removal: merges underfull nodes with a sibling, drops empty
    /// ones, and shortens the tree when the root has a single child.
    private func rebalance(_ start: Node, path: inout [(Node, Int)]) throws(FirnError) {
        var node = start
        while let (parent, index) = path.last, node.cellBytes < capacity / 4 {
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
            left.dirty = true
            if left.isLeaf {
                left.entries.append(contentsOf: right.entries)
                left.cellBytes += right.cellBytes
            } else {
                // The right node's first separator is implicit; the parent knows it.
                let separator = parent.keys[leftIndex + 1]
                let old = right.keys[0]
                right.keys[0] = separator
                left.keys.append(contentsOf: right.keys)
                left.children.append(contentsOf: right.children)
                left.cellBytes += right.cellBytes - Node.branchFootprint(old) + Node.branchFootprint(separator)
            }
            removeChild(parent, at: leftIndex + 1)
            discard(right)
            if left.cellBytes > capacity {
                let newRight = left.splitHalf()
                let separator = newRight.firstKey
                parent.keys.insert(separator, at: leftIndex + 1)
                parent.children.insert(.node(newRight), at: leftIndex + 1)
                parent.cellBytes += Node.branchFootprint(separator)
            }
            node = parent
        }
        // Collapse the root.
        while case let .node(top)? = root {
            if top.isLeaf {
                if top.entries.isEmpty {
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
        parent.cellBytes -= Node.branchFootprint(parent.keys[index])
        parent.keys.remove(at: index)
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

    private func release(_ value: LeafValue) throws(FirnError) {
        if case let .overflow(head, length) = value {
            try context.releaseOverflow(head, length: length)
        }
    }

    private func releaseSubtree(_ child: Child, level: Int?) throws(FirnError) {
        switch child {
        case let .node(node):
            discard(node)
            if node.isLeaf {
                for entry in node.entries { try release(entry.value) }
            } else {
                for c in node.children { try releaseSubtree(c, level: node.level - 1) }
            }
        case let .page(ref):
            let view = try context.source.view(ref, level: level)
            try view.checkTreePage(expectLeaf: nil)
            context.release(page: ref.page, birth: ref.birth)
            if view.typeByte == PageType.leaf.rawValue {
                for i in 0..<view.count {
                    if case let .overflow(head, length) = try view.leafCell(i).value {
                        try context.releaseOverflow(head, length: length)
                    }
                }
            } else {
                for i in 0..<view.count {
                    try releaseSubtree(.page(try view.branchChild(i)), level: view.level - 1)
                }
            }
        }
    }

    // MARK: in-memory search

    @inline(__always)
    static func leafSearch(_ node: Node, _ key: UnsafeRawBufferPointer) -> (Int, Bool) {
        var low = 0, high = node.entries.count
        while low < high {
            let mid = (low + high) >> 1
            let c = compareBytes(node.entries[mid].key, key)
            if c == 0 { return (mid, true) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    @inline(__always)
    static func branchSearch(_ node: Node, _ key: UnsafeRawBufferPointer) -> Int {
        var low = 1, high = node.keys.count
        while low < high {
            let mid = (low + high) >> 1
            if compareBytes(node.keys[mid], key) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }
}
