/// Walking the pages of a version's trees for inspection (`firn dump`):
/// each page once, parents before children, with cycle and shared-page
/// detection, so a hostile file makes the walk fail with `.corrupt`
/// rather than loop or blow up exponentially.
extension Snapshot {
    /// What `walkPages` visits.
    package enum WalkDepth: Sendable {
        /// Branch pages only (leaves are counted but not read): a cheap
        /// check that the tree's shape is a tree before iterating it.
        case branches
        /// Every page, overflow chains included.
        case all
    }

    /// The root of the catalog tree and of the space tree (none when the
    /// version was read from the commit history).
    package var catalogRootRef: PageRef { info.catalogRoot }
    package var spaceRootRef: PageRef { info.spaceRoot ?? .none }

    /// Visits every page of the tree rooted at `root` in depth-first order.
    /// Throws `.corrupt` when a page is reached twice, a level is wrong or a
    /// page cannot be decoded. `visited` is shared across calls so a page
    /// used by two trees is caught as well.
    package func walkPages(
        root: PageRef, tree: String, depth: WalkDepth = .all, visited: inout Set<UInt64>,
        visit: (PageSummary) throws(FirnError) -> Void
    ) throws(FirnError) {
        guard !root.isNone else { return }
        do {
            try walk(root, level: nil, tree: tree, depth: depth, visited: &visited, visit: visit)
        } catch {
            throw error.located(in: store.path, version: version).inTree(tree)
        }
    }

    private func claim(_ page: UInt64, visited: inout Set<UInt64>) throws(FirnError) {
        guard visited.insert(page).inserted else {
            throw FirnError.corrupt(path: "", page: page, version: nil,
                                    detail: "page reached twice (a cycle or a page shared between trees)")
        }
    }

    private func walk(
        _ ref: PageRef, level: Int?, tree: String, depth: WalkDepth, visited: inout Set<UInt64>,
        visit: (PageSummary) throws(FirnError) -> Void
    ) throws(FirnError) {
        try claim(ref.page, visited: &visited)
        let view = try source.view(ref, level: level)
        if depth == .branches && view.level == 0 && level != nil { return }
        try view.checkTreePage(expectLeaf: nil)
        let isLeaf = view.typeByte == PageType.leaf.rawValue
        if isLeaf != (view.level == 0) {
            throw view.corrupt("\(isLeaf ? "leaf" : "branch") page at level \(view.level)")
        }
        var used = PageHeader.size + 2 * view.count
        var first: [UInt8]? = nil
        var last: [UInt8]? = nil
        var overflows: [(PageRef, UInt64)] = []
        if isLeaf {
            for i in 0..<view.count {
                let cell = try view.leafCell(i)
                used += LeafLayout.cellHeaderSize + cell.key.count
                switch cell.value {
                case let .inline(bytes): used += bytes.count
                case let .overflow(head, length):
                    used += PageRef.size + 8
                    overflows.append((head, length))
                }
                if i == 0 { first = Array(cell.key) }
                if i == view.count - 1 { last = Array(cell.key) }
            }
        } else {
            for i in 0..<view.count {
                let key = try view.branchKey(i)
                used += BranchLayout.cellHeaderSize + key.count
                if i == min(1, view.count - 1) { first = Array(key) }
                if i == view.count - 1 { last = Array(key) }
            }
        }
        try visit(PageSummary(
            page: ref.page, tree: tree, type: isLeaf ? "leaf" : "branch", level: view.level, birth: view.birth,
            count: view.count, usedBytes: min(used, view.pageSize), firstKey: first, lastKey: last))
        if depth == .all {
            for (head, length) in overflows {
                try walkOverflow(head, length: length, tree: tree, visited: &visited, visit: visit)
            }
        }
        if !isLeaf {
            for i in 0..<view.count {
                try walk(try view.branchChild(i), level: view.level - 1, tree: tree, depth: depth,
                         visited: &visited, visit: visit)
            }
        }
    }

    private func walkOverflow(
        _ head: PageRef, length: UInt64, tree: String, visited: inout Set<UInt64>,
        visit: (PageSummary) throws(FirnError) -> Void
    ) throws(FirnError) {
        var ref = head
        var total: UInt64 = 0
        while !ref.isNone {
            try claim(ref.page, visited: &visited)
            let view = try source.view(ref)
            let (payload, next) = try view.overflowPayload()
            total += UInt64(payload.count)
            if total > length {
                throw view.corrupt("overflow chain holds more than the leaf's \(length) bytes")
            }
            try visit(PageSummary(
                page: ref.page, tree: tree, type: "overflow", level: 0, birth: view.birth, count: 0,
                usedBytes: OverflowLayout.payloadOffset + payload.count, firstKey: nil, lastKey: nil))
            ref = next
        }
    }
}
