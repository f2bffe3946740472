/// A forward walk over one on-disk tree's entries in key order, reading its
/// pages through a `PageReader` (one frame per level of the path) instead of
/// the store's map, so copying a file does not make it resident in the
/// process (see `PageReader`). Every page is checked against the reference
/// that led to it as a checking `PageSource` does (FORMAT.md §4: number,
/// birth within the version, stored and computed checksum), and its level
/// and cell table before its cells are read: a copy never carries a
/// damaged page on. Keys and values point into the reader's frames and
/// stay valid until the next step.
struct CheckedTreeWalk: EntryWalk {
    private let reader: PageReader
    private let root: PageRef
    private let version: UInt64
    /// False in a second pass over a version whose first pass computed
    /// every page's checksum (export's: see `PackedImageWriter.stream`).
    private let computesChecksums: Bool
    /// The reader's frames in use below this walk's path.
    private let baseMark: Int
    /// The path from the root: each page and the cell (a branch: the child
    /// being walked) at which the walk stands.
    private var path: [(view: PageView, index: Int)] = []

    init(reader: PageReader, root: PageRef, version: UInt64, computesChecksums: Bool = true) {
        self.reader = reader
        self.root = root
        self.version = version
        self.computesChecksums = computesChecksums
        baseMark = reader.mark
    }

    var isValid: Bool {
        guard let top = path.last else { return false }
        return top.index < top.view.count
    }

    mutating func first() throws(FirnError) {
        pop(to: 0)
        guard !root.isNone else { return }
        try descend(from: root, level: nil)
        try settle()
    }

    mutating func next() throws(FirnError) {
        guard !path.isEmpty else { return }
        path[path.count - 1].index += 1
        try settle()
    }

    func withKey<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(FirnError) -> R? {
        guard let top = path.last, top.index < top.view.count else { return nil }
        return body(try top.view.leafKey(top.index))
    }

    func storedValue() throws(FirnError) -> StoredValue? {
        guard let top = path.last, top.index < top.view.count else { return nil }
        return try top.view.leafCell(top.index).value
    }

    /// The leaf whose first entry the walk stands at: a page `descend`
    /// checked in full (reference, checksum, type, level, cell table).
    var leafAtStart: PageView? {
        guard let top = path.last, top.index == 0, top.view.count > 0 else { return nil }
        return top.view
    }

    mutating func skipLeaf() throws(FirnError) {
        guard !path.isEmpty else { return }
        path[path.count - 1].index = path[path.count - 1].view.count
        try settle()
    }

    /// The whole value of an overflow cell, its chain read and checked
    /// through a frame above the path.
    func readOverflow(_ head: PageRef, length: UInt64) throws(FirnError) -> [UInt8] {
        let mark = reader.mark
        defer { reader.release(to: mark) }
        return try PageSource.readOverflow(head, length: length, pageSize: reader.pageSize, pageLimit: reader.pageLimit) {
            (ref) throws(FirnError) in
            reader.release(to: mark)
            return try open(ref)
        }
    }

    /// Goes down from `ref` to the leftmost leaf below it.
    private mutating func descend(from ref: PageRef, level: Int?) throws(FirnError) {
        var ref = ref
        var level = level
        while true {
            let view = try open(ref)
            try view.checkTreePage(expectLeaf: nil)
            if let level, view.level != level {
                throw view.corrupt("level \(view.level) where the parent expects \(level)")
            }
            let isLeaf = view.typeByte == PageType.leaf.rawValue
            if isLeaf != (view.level == 0) {
                throw view.corrupt("\(isLeaf ? "leaf" : "branch") page at level \(view.level)")
            }
            path.append((view, 0))
            if isLeaf { return }
            guard view.count > 0 else { throw view.corrupt("branch page without children") }
            ref = try view.branchChild(0)
            level = view.level - 1
        }
    }

    /// From a position past a page's last cell, climbs to the next cell of
    /// an ancestor and goes down to the leaf after (an empty leaf, a defect
    /// `verify` reports, holds nothing to walk).
    private mutating func settle() throws(FirnError) {
        while let top = path.last, top.index >= top.view.count {
            pop(to: path.count - 1)
            guard !path.isEmpty else { return }
            let parent = path.count - 1
            path[parent].index += 1
            let (view, index) = path[parent]
            if index < view.count {
                try descend(from: try view.branchChild(index), level: view.level - 1)
            }
        }
    }

    private mutating func pop(to depth: Int) {
        path.removeLast(path.count - depth)
        reader.release(to: baseMark + depth)
    }

    private func open(_ ref: PageRef) throws(FirnError) -> PageView {
        let view = try reader.view(ref.page)
        try PageSource.check(view, against: ref, version: version, computingChecksum: computesChecksums)
        return view
    }
}
