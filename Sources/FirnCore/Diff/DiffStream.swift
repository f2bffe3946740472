/// One version's side of a diff: a B+ tree as an ordered stream whose head
/// is either a subtree not read yet (a page reference, its level and the
/// lowest key it may hold) or a leaf entry. The diff decides, head against
/// head, whether to pass over a subtree unread, open it, or take an entry,
/// so only the pages that differ between the versions are read.
///
/// Hostile pages cannot make it crash or loop: every read goes through the
/// bounds-checked `PageSource`, levels must fall by one per step down (a
/// reference cycle cannot), at most as many pages are read as the version
/// has (so a page reached twice through a shared subtree cannot multiply
/// the work), and keys must come out in strictly increasing order, at or
/// above the separator that led to them (the merge relies on both).
/// Checksums are not recomputed: like every read path, this trusts the
/// page's birth against its reference; `verify` checks the rest.
struct DiffStream {
    enum Head {
        /// A subtree at `level`; every key in it is at or above
        /// `lowerBound` (nil: no bound known, the left edge of the tree).
        case subtree(PageRef, level: Int, lowerBound: UnsafeRawBufferPointer?)
        case entry(LeafCell)
        case end
    }

    /// An open page and the position of the next child or entry in it.
    private struct Frame {
        let view: PageView
        var index: Int
        /// The lowest key the page may hold (nil: unbounded).
        let lowerBound: UnsafeRawBufferPointer?
    }

    private let source: PageSource
    /// Stamped on the errors this side raises, so they name their version.
    private let version: UInt64
    let root: PageRef
    private var stack: [Frame] = []
    private(set) var head: Head = .end
    private(set) var pagesRead = 0
    private(set) var entriesRead = 0
    private let pageBudget: Int
    /// Every later entry's key must be above this one (at or above it when
    /// `floorInclusive`): the last key taken, or a separator passed since.
    private var floor: UnsafeRawBufferPointer?
    private var floorInclusive = false
    /// True while the head is the unexpanded root: its frame is on the
    /// stack only to keep the page `start` read.
    private var isAtRoot = false

    init(source: PageSource, root: PageRef, version: UInt64) {
        self.source = source
        self.root = root
        self.version = version
        pageBudget = Int(clamping: source.pageLimit)
    }

    /// Reads the root, to learn its level (the page is kept for `expand`).
    mutating func start() throws(FirnError) {
        guard !root.isNone else { return }
        do {
            let view = try open(root, level: nil)
            stack = [Frame(view: view, index: 0, lowerBound: nil)]
            head = .subtree(root, level: view.level, lowerBound: nil)
            isAtRoot = true
        } catch { throw located(error) }
    }

    /// Passes over the head subtree without reading it.
    mutating func skip() throws(FirnError) {
        guard case let .subtree(_, _, lowerBound) = head else { return }
        raiseFloor(lowerBound)
        if isAtRoot {
            isAtRoot = false
            stack.removeAll()
            head = .end
            return
        }
        stack[stack.count - 1].index += 1
        do { try settle() } catch { throw located(error) }
    }

    /// Opens the head subtree: its first child or entry becomes the head.
    mutating func expand() throws(FirnError) {
        guard case let .subtree(ref, level, lowerBound) = head else { return }
        raiseFloor(lowerBound)
        do {
            if isAtRoot {
                isAtRoot = false  // `start` opened it already
            } else {
                let view = try open(ref, level: level)
                stack.append(Frame(view: view, index: 0, lowerBound: lowerBound))
            }
            try settle()
        } catch { throw located(error) }
    }

    /// Moves past the head entry.
    mutating func advance() throws(FirnError) {
        guard case .entry = head else { return }
        stack[stack.count - 1].index += 1
        do { try settle() } catch { throw located(error) }
    }

    // MARK: internals

    /// Names this side's version in an error (the path is added by the caller).
    private func located(_ error: FirnError) -> FirnError {
        error.located(in: "", version: version)
    }

    private mutating func open(_ ref: PageRef, level: Int?) throws(FirnError) -> PageView {
        pagesRead += 1
        guard pagesRead <= pageBudget else {
            throw FirnError.corrupt(
                path: "", page: ref.page, version: nil,
                detail: "the tree reaches more pages than the version has (a page shared by two parents?)")
        }
        let view = try source.view(ref, level: level)
        try view.checkTreePage(expectLeaf: nil)
        let isLeaf = view.typeByte == PageType.leaf.rawValue
        if isLeaf != (view.level == 0) {
            throw view.corrupt("\(isLeaf ? "leaf" : "branch") page at level \(view.level)")
        }
        return view
    }

    /// Drops finished pages and makes the next child or entry the head.
    private mutating func settle() throws(FirnError) {
        while let top = stack.last, top.index >= top.view.count {
            stack.removeLast()
            guard !stack.isEmpty else { break }
            stack[stack.count - 1].index += 1
        }
        guard let top = stack.last else {
            head = .end
            return
        }
        if top.view.level == 0 {
            let cell = try top.view.leafCell(top.index)
            if let floor {
                let order = compareBytes(cell.key, floor)
                if order < 0 || (order == 0 && !floorInclusive) {
                    throw top.view.corrupt("leaf cell \(top.index) is out of key order")
                }
            }
            floor = cell.key
            floorInclusive = false
            entriesRead += 1
            head = .entry(cell)
        } else {
            // Child i holds keys from separator i on; the first child
            // inherits the page's own bound (its separator is stored empty).
            let bound = top.index > 0 ? try top.view.branchKey(top.index) : top.lowerBound
            head = .subtree(try top.view.branchChild(top.index), level: top.view.level - 1, lowerBound: bound)
        }
    }

    /// Entries after a separator lie at or above it: passing a subtree
    /// tightens the order check to its bound.
    private mutating func raiseFloor(_ bound: UnsafeRawBufferPointer?) {
        guard let bound else { return }
        if let floor, compareBytes(bound, floor) <= 0 { return }
        floor = bound
        floorInclusive = true
    }
}
