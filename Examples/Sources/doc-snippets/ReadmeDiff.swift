import ExampleSupport
import FirnCore
import Foundation

/// The README's version diff: what one commit changed, read from the two
/// versions.
enum ReadmeDiff {
    static let snippet = Snippet.onThread(name: "readme-diff") { directory in
        let store = try Store.open(directory + "/app.firn")
        defer { store.close() }
        try store.write { try $0.tree("users")?.put(Array("alice".utf8), Array("admin".utf8)) }
        // The snippet prints; this `print` keeps the lines to check them.
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // snippet: readme-diff
        let before = try store.snapshot()
        try store.write { try $0.tree("users")?.put(Array("dave".utf8), Array("guest".utf8)) }  // a commit
        let after = try store.snapshot()
        let stats = try after.changes(in: "users", since: before) { change in
            switch change {  // key order; keys and values point into the map
            case let .inserted(key, value): print("+", Array(key), value.count)
            case let .deleted(key, _): print("-", Array(key))
            case let .changed(key, _, new): print("~", Array(key), new.inlineBytes.map(Array.init) ?? [])
            }
            return true  // false stops the diff
        }
        print(stats.pagesRead, stats.subtreesSkipped)
        let trees = try after.treeChanges(since: before)  // [.created / .dropped / .changed]
        // snippet end

        try check(printed.count == 2 && printed[0] == "+ \(Array("dave".utf8)) 5", "the diff printed \(printed)")
        try check(trees.count == 1 && trees[0].name == "users", "the changed trees: \(trees.map(\.name))")
        if case .changed = trees[0] {} else { throw Unexpected(description: "users reported as \(trees[0]), not changed") }
        try check(stats.changes == 1, "the diff counted \(stats.changes) changes, not 1")
    }
}
