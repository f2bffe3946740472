import FirnCore
/// `firn dump`: the B+ trees of a readable version — per-level shape,
/// one line per page, one decoded page, or every entry in the text format
/// `load` reads.
package enum Dump {
    package struct Options: Sendable {
        package var path: String
        package var version: UInt64?
        package var tree: String?
        /// Entries: the first key (inclusive) and the end key (exclusive) of
        /// the range, per tree, and at most `limit` entries in all.
        package var from: [UInt8]?
        package var to: [UInt8]?
        package var limit: UInt64?
        package init(path: String) { self.path = path }

        /// A range or limit shows part of the trees: a tree it leaves empty
        /// is no empty tree, so no tree-name line then.
        var isPartial: Bool { from != nil || to != nil || limit != nil }
    }

    package struct Level: Codable, Sendable, Equatable {
        package var level: Int
        package var pages: UInt64
        package var cells: UInt64
        /// Average page fill, percent.
        package var fillPercent: Double
    }

    package struct Tree: Codable, Sendable, Equatable {
        package var name: String
        /// A user tree, or the catalog or space tree (whatever the user trees are named).
        package var kind: TreeKind
        package var entries: UInt64
        package var depth: Int
        package var levels: [Level]
        package var overflowPages: UInt64
        /// The tree's first and last key (the CLI spells them).
        package var firstKey: [UInt8]? = nil
        package var lastKey: [UInt8]? = nil

        enum CodingKeys: String, CodingKey { case name, kind, entries, depth, levels, overflowPages }
    }

    package struct Page: Codable, Sendable, Equatable {
        package var page: UInt64
        package var tree: String
        package var treeKind: TreeKind
        package var type: PageType
        package var level: Int
        package var birth: UInt64
        package var count: Int
        package var usedBytes: Int
        package var fillPercent: Double
        /// The page's first and last key (see `PageSummary`; the CLI spells them).
        package var firstKey: [UInt8]? = nil
        package var lastKey: [UInt8]? = nil

        enum CodingKeys: String, CodingKey { case page, tree, treeKind, type, level, birth, count, usedBytes, fillPercent }
    }

    /// What `dump` read of a version: a row per tree (`structure`, `Tree`)
    /// or per page (`pages`, `Page`). The rows, whose keys the CLI spells,
    /// are not part of the report's own encoding: the CLI writes them as
    /// `trees` or `pages`.
    package struct Report<Row: Codable & Sendable>: Codable, Sendable {
        package var path: String
        package var version: UInt64
        package var pageSize: Int
        package var rows: [Row] = []
        package var pinned: Bool
        package var note: String?

        enum CodingKeys: String, CodingKey { case path, version, pageSize, pinned, note }
    }

    /// One tree a dump covers.
    private struct Root {
        var name: String
        var kind: TreeKind
        var ref: PageRef
        /// The catalog's count (user trees), the number of trees (catalog); 0 for the space tree.
        var count: UInt64
    }

    /// The trees a dump covers: `--tree` alone, or every user tree then the
    /// catalog and space trees. `--tree` names a user tree first; "(catalog)"
    /// and "(space)" name the system trees unless a user tree has that name.
    private static func roots(_ snapshot: Snapshot, only: String?) throws(FirnError) -> [Root] {
        let catalog = try snapshot.catalog()
        let system = [
            Root(name: "(catalog)", kind: .catalog, ref: snapshot.catalogRootRef, count: UInt64(catalog.count)),
            Root(name: "(space)", kind: .space, ref: snapshot.spaceRootRef, count: 0),
        ]
        let user = catalog.map { Root(name: $0.name, kind: .user, ref: $0.entry.root, count: $0.entry.count) }
        guard let only else { return user + system }
        guard let root = user.first(where: { $0.name == only }) ?? system.first(where: { $0.name == only }) else {
            throw FirnError.invalidArgument("\(snapshot.store.path): no tree named \"\(only)\" in version \(snapshot.version)")
        }
        return [root]
    }

    /// The type of a page the walk visited (it names only page types).
    private static func type(of page: PageSummary) throws(FirnError) -> PageType {
        guard let type = PageType(name: page.type) else { throw FirnError.misuse("no page type named \"\(page.type)\"") }
        return type
    }

    package static func structure(_ options: Options) throws(FirnError) -> Report<Tree> {
        let access = try ReadAccess.open(options.path, version: options.version, label: "firn dump")
        defer { access.close() }
        let snapshot = access.snapshot
        let pageSize = access.store.pageSize
        var visited = Set<UInt64>()
        var trees: [Tree] = []
        for root in try roots(snapshot, only: options.tree) {
            var levels: [Int: Level] = [:]
            var overflow: UInt64 = 0
            var used: [Int: UInt64] = [:]
            var first: [UInt8]? = nil
            var last: [UInt8]? = nil
            var entries: UInt64 = 0
            try snapshot.walkPages(root: root.ref, tree: root.name, visited: &visited) { (p) throws(FirnError) in
                if try type(of: p) == .overflow { overflow += 1; return }
                var level = levels[p.level] ?? Level(level: p.level, pages: 0, cells: 0, fillPercent: 0)
                level.pages += 1
                level.cells += UInt64(p.count)
                levels[p.level] = level
                used[p.level, default: 0] += UInt64(p.usedBytes)
                if p.level == 0 {
                    entries += UInt64(p.count)
                    if first == nil, let k = p.firstKey { first = k }
                    if let k = p.lastKey { last = k }
                }
            }
            let shaped = levels.values.sorted { $0.level > $1.level }.map { level -> Level in
                var l = level
                l.fillPercent = Double(used[l.level] ?? 0) * 100 / Double(max(1, l.pages) * UInt64(pageSize))
                l.fillPercent = (l.fillPercent * 10).rounded() / 10
                return l
            }
            trees.append(Tree(name: root.name, kind: root.kind, entries: root.kind == .space ? entries : root.count, depth: shaped.count,
                              levels: shaped, overflowPages: overflow, firstKey: first, lastKey: last))
        }
        return Report(path: options.path, version: snapshot.version, pageSize: pageSize, rows: trees,
                      pinned: access.pinned, note: access.note)
    }

    package static func pages(_ options: Options) throws(FirnError) -> Report<Page> {
        let access = try ReadAccess.open(options.path, version: options.version, label: "firn dump")
        defer { access.close() }
        let snapshot = access.snapshot
        let pageSize = access.store.pageSize
        var visited = Set<UInt64>()
        var pages: [Page] = []
        for root in try roots(snapshot, only: options.tree) {
            try snapshot.walkPages(root: root.ref, tree: root.name, visited: &visited) { (p) throws(FirnError) in
                pages.append(Page(
                    page: p.page, tree: p.tree, treeKind: root.kind, type: try type(of: p), level: p.level, birth: p.birth, count: p.count,
                    usedBytes: p.usedBytes, fillPercent: (Double(p.usedBytes) * 1000 / Double(pageSize)).rounded() / 10,
                    firstKey: p.firstKey, lastKey: p.lastKey))
            }
        }
        return Report(path: options.path, version: snapshot.version, pageSize: pageSize, rows: pages,
                      pinned: access.pinned, note: access.note)
    }

    /// Page `number` of the file, decoded whatever it holds (`PageInspector`).
    package static func page(_ path: String, number: UInt64) throws(FirnError) -> InspectedPage {
        let store = try DatabaseInput.openReadOnly(path)
        defer { store.close() }
        return try PageInspector.inspect(store, page: number)
    }

    package struct EntriesSummary: Codable, Sendable {
        package var path: String
        package var version: UInt64
        package var trees: Int
        package var entries: UInt64
        package var pinned: Bool
        package var note: String?
    }

    /// Hands every entry (of `--tree`, or of every tree) to `line`, in
    /// tree then key order, and each named tree without entries as a line
    /// of its own (so that `load` recreates it). The trees' shapes are
    /// checked first, so a hostile file cannot make the walk loop; then
    /// `shapesChecked` is called, before the first line.
    package static func entries(
        _ options: Options, shapesChecked: () throws(ToolError) -> Void, line: (EntryCodec.Line) throws(ToolError) -> Void
    ) throws -> EntriesSummary {
        let access = try ReadAccess.open(options.path, version: options.version, label: "firn dump")
        defer { access.close() }
        let snapshot = access.snapshot
        // Every named tree (whatever its name looks like); the system trees only when asked for.
        let trees = try roots(snapshot, only: options.tree).filter { $0.kind == .user || options.tree != nil }
        var visited = Set<UInt64>()
        for tree in trees {
            try snapshot.walkPages(root: tree.ref, tree: tree.name, depth: .branches, visited: &visited) { (_) throws(FirnError) in }
        }
        try shapesChecked()
        var count: UInt64 = 0
        walk: for tree in trees {
            let name = tree.name
            // A named tree through the snapshot: for a version between
            // checkpoints its cursor merges the log's entries over the
            // checkpoint's tree, which alone would miss them.
            let cursor: Cursor
            if tree.kind == .user, let reader = try snapshot.tree(name) {
                cursor = reader.cursor()
            } else {
                cursor = snapshot.cursor(root: tree.ref, tree: name)
            }
            if let from = options.from { try cursor.seek(from) } else { try cursor.first() }
            if !cursor.isValid && tree.kind == .user && !options.isPartial { try line(.emptyTree(name)) }
            while cursor.isValid {
                if let limit = options.limit, count >= limit { break walk }
                guard let key = try cursor.key else { break }
                if let to = options.to, !key.lexicographicallyPrecedes(to) { break }
                guard let value = try cursor.value else { break }
                try line(.entry(EntryCodec.Entry(tree: name, key: key, value: value)))
                count += 1
                try cursor.next()
            }
        }
        return EntriesSummary(path: options.path, version: snapshot.version, trees: trees.count, entries: count,
                              pinned: access.pinned, note: access.note)
    }
}
