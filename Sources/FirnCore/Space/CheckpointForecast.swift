/// What the next checkpoint will take from the pages the current log epoch
/// stands on (FORMAT.md 8.2): frames change no page, so a pin on a version
/// of the current epoch holds nothing yet; the checkpoint that applies the
/// frames replaces every page on a path to a key they change, the
/// catalog's paths to the trees they touch, the space tree's path it
/// appends to, and the epoch's log region — and a pin on the epoch then
/// holds those. Read from the checkpoint's pages and the frames' keys,
/// so a lower bound: merges of nodes the checkpoint also rewrites, and
/// space-tree leaves its free-list changes reach, are not counted.
package struct CheckpointForecast: Sendable, Equatable {
    /// A page the next checkpoint replaces and the version that wrote it:
    /// pins in `birth …` the checkpoint's version − 1 see it.
    package struct Page: Sendable, Equatable {
        package var page: UInt64
        package var birth: UInt64
    }

    /// The checkpoint the frames stand on.
    package var checkpoint: UInt64
    /// Commit frames since it, up to the version read.
    package var frames: UInt64
    package var pages: [Page]
    /// Of `pages`, those of the log region.
    package var regionPages: UInt64
}

extension Snapshot {
    /// The forecast for this version's epoch when it is a frame of the
    /// newest checkpoint's log; nil for a checkpoint's own version or one
    /// read without its commit record.
    package func checkpointForecast() throws(FirnError) -> CheckpointForecast? {
        guard let log, let record = info.commitRecord else { return nil }
        var seen = Set<UInt64>()
        var pages: [CheckpointForecast.Page] = []
        func add(_ page: UInt64, _ birth: UInt64) {
            if page >= 2, seen.insert(page).inserted { pages.append(.init(page: page, birth: birth)) }
        }
        var regionPages: UInt64 = 0
        if let region = record.logRegion {
            for page in region.startPage..<region.startPage + region.pageCount { add(page, record.version) }
            regionPages = region.pageCount
        }
        do throws(FirnError) {
            for (name, state) in log.trees {
                // The catalog entry changes with the tree's root and count;
                // the walk to it finds the checkpoint's entry of the tree.
                let value = try withBytes(Array(name.utf8)) { (key) throws(FirnError) in
                    try path(to: key, in: info.catalogRoot, add)
                }
                guard case let .inline(bytes)? = value, let entry = CatalogEntry.decode(bytes) else { continue }
                if !state.showsCheckpoint {
                    // Dropped or created anew: every page of the old tree goes.
                    try everyPage(from: entry.root, add)
                    continue
                }
                for change in log.entries(of: name) {
                    try path(to: change.key, in: entry.root, add)
                }
            }
            if let space = record.spaceRoot.isNone ? nil : record.spaceRoot {
                try path(to: UnsafeRawBufferPointer(start: nil, count: 0), in: space, add, last: true)
            }
            // Each commit frame is one version past the checkpoint.
            return CheckpointForecast(checkpoint: record.version, frames: version - record.version, pages: pages,
                                      regionPages: regionPages)
        } catch {
            throw error.located(in: store.path, version: version)
        }
    }

    /// Adds the pages from `root` down to the leaf that holds `key` (the
    /// last leaf with `last`), and the overflow chain of its value there;
    /// returns that value when the key is there.
    @discardableResult
    private func path(to key: UnsafeRawBufferPointer, in root: PageRef, _ add: (UInt64, UInt64) -> Void,
                      last: Bool = false) throws(FirnError) -> StoredValue? {
        guard !root.isNone else { return nil }
        var ref = root
        var level: Int? = nil
        while true {
            let view = try source.view(ref, level: level)
            try view.checkTreePage(expectLeaf: nil)
            add(ref.page, ref.birth)
            if view.typeByte != PageType.branch.rawValue {
                guard !last else { return nil }
                let (index, found) = try view.leafSearch(key)
                guard found else { return nil }
                let value = try view.leafCell(index).value
                if case let .overflow(head, _) = value { try chain(from: head, add) }
                return value
            }
            let index = last ? view.count - 1 : try view.branchSearch(key)
            ref = try view.branchChild(index)
            level = view.level - 1
        }
    }

    /// Adds every page of the tree at `root`, overflow chains included.
    private func everyPage(from root: PageRef, _ add: (UInt64, UInt64) -> Void) throws(FirnError) {
        guard !root.isNone else { return }
        var work: [(PageRef, Int?)] = [(root, nil)]
        while let (ref, level) = work.popLast() {
            let view = try source.view(ref, level: level)
            try view.checkTreePage(expectLeaf: nil)
            add(ref.page, ref.birth)
            if view.typeByte == PageType.branch.rawValue {
                for i in 0..<view.count { work.append((try view.branchChild(i), view.level - 1)) }
            } else {
                for i in 0..<view.count {
                    if case let .overflow(head, _) = try view.leafCell(i).value { try chain(from: head, add) }
                }
            }
        }
    }

    private func chain(from head: PageRef, _ add: (UInt64, UInt64) -> Void) throws(FirnError) {
        var ref = head
        var guardCount: UInt64 = 0
        while !ref.isNone, guardCount < info.logicalPageCount {
            let view = try source.view(ref)
            add(ref.page, ref.birth)
            ref = try view.overflowPayload().1
            guardCount += 1
        }
    }
}

extension Snapshot {
    /// The keys of `tree` the frames since this version's checkpoint
    /// change, and whether a frame dropped or created the tree anew (its
    /// checkpoint pages then no longer show); nil when no frame touched it
    /// or the version is a checkpoint's.
    package func loggedChanges(of tree: String) -> (keys: Int, reset: Bool)? {
        guard let log, let state = log.trees[tree] else { return nil }
        return (log.entries(of: tree).count, !state.showsCheckpoint)
    }
}
