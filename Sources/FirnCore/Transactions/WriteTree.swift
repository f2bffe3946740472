/// A named tree inside the write transaction.
public struct WriteTree {
    public let name: String
    /// Where the tree's changes go: a B+ tree changed in memory, or, in log
    /// mode, the transaction's change set (the generation tells a handle
    /// from before a drop apart).
    enum Storage {
        case pages(MutableTree, PageCommit)
        case log(LogChangeSet, generation: Int)
    }
    let storage: Storage
    let transaction: WriteTransaction

    /// The B+ tree of a copy-on-write transaction (for the package's tests
    /// and bulk paths); nil in log mode.
    var tree: MutableTree? {
        if case let .pages(tree, _) = storage { return tree }
        return nil
    }

    public var count: UInt64 {
        switch storage {
        case let .pages(tree, _): return tree.count
        case let .log(changes, _): return (try? changes.count(name)) ?? 0
        }
    }

    /// The transaction is active and this handle's tree was not dropped:
    /// changes through a dropped tree's handle would be lost, and its
    /// overflow pages leaked.
    private func checkUsable() throws(FirnError) {
        try transaction.checkActive()
        guard transaction.isCurrent(storage, name: name) else {
            throw FirnError.misuse("\(transaction.store.path): tree \"\(name)\" was dropped in this transaction")
        }
    }

    public func get(_ key: [UInt8]) throws(FirnError) -> [UInt8]? {
        try checkUsable()
        return try transaction.located { () throws(FirnError) -> [UInt8]? in
            switch storage {
            case let .pages(tree, _):
                guard let value = try withBytes(key, { (k) throws(FirnError) in try tree.get(k) }) else { return nil }
                return try tree.materialize(value)
            case let .log(changes, _):
                guard let value = try withBytes(key, { (k) throws(FirnError) in try changes.get(name, k) }) else {
                    changes.noteAbsent(name, key)
                    return nil
                }
                return try changes.base.source.readValue(value)
            }
        }
    }

    /// Stores `value` under `key`; true when the key is new.
    @discardableResult
    public func put(_ key: [UInt8], _ value: [UInt8]) throws(FirnError) -> Bool {
        try checkUsable()
        let geometry = transaction.store.geometry
        guard key.count <= geometry.maxKeyLength else {
            throw FirnError.invalidArgument("key of \(key.count) bytes is longer than the limit of \(geometry.maxKeyLength)")
        }
        return try transaction.located { () throws(FirnError) in
            switch storage {
            case let .pages(tree, pages):
                // Large values go to an overflow chain now; the leaf keeps its head.
                return try pages.put(tree, key, value)
            case let .log(changes, _):
                return try withBytes(key) { (k) throws(FirnError) in
                    try withBytes(value) { (v) throws(FirnError) in try changes.put(name, k, v) }
                }
            }
        }
    }

    /// Removes `key`; false when it was absent.
    @discardableResult
    public func delete(_ key: [UInt8]) throws(FirnError) -> Bool {
        try checkUsable()
        return try transaction.located { () throws(FirnError) in
            switch storage {
            case let .pages(tree, _): return try tree.delete(key)
            case let .log(changes, _):
                return try withBytes(key) { (k) throws(FirnError) in try changes.delete(name, k) }
            }
        }
    }

    /// A cursor over the tree as this transaction sees it; valid until the tree changes.
    public func cursor() throws(FirnError) -> Cursor {
        try checkUsable()
        switch storage {
        case let .pages(tree, pages):
            return Cursor(TreeCursor(source: try pages.context.source, root: tree.root), owner: transaction, path: transaction.store.path)
        case let .log(changes, _):
            guard let cursor = try transaction.located({ () throws(FirnError) in try changes.cursor(name, owner: transaction) }) else {
                throw FirnError.misuse("\(transaction.store.path): tree \"\(name)\" was dropped in this transaction")
            }
            return cursor
        }
    }
}
