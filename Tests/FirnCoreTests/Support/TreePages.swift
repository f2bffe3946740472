@testable import FirnCore

/// The pages of one tree of a snapshot in walk order (parents before
/// children, children in key order), overflow pages left out: where the
/// damage tests aim.
enum TreePages {
    static func of(_ tree: String, in snapshot: Snapshot) throws -> [(page: UInt64, level: Int)] {
        guard let root = try snapshot.tree(tree)?.entry.root else { return [] }
        var pages: [(page: UInt64, level: Int)] = []
        var visited = Set<UInt64>()
        try snapshot.walkPages(root: root, tree: tree, visited: &visited) { summary in
            if summary.type != "overflow" { pages.append((summary.page, summary.level)) }
        }
        return pages
    }

    /// The leaves of `tree` in key order.
    static func leaves(_ tree: String, in snapshot: Snapshot) throws -> [UInt64] {
        try of(tree, in: snapshot).filter { $0.level == 0 }.map(\.page)
    }
}
