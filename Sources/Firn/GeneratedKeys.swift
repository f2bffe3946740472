import FirnCore

/// Generated keys of types without a primary key (docs/FORMAT.md §12.3,
/// §12.6) are never given twice: the next one is the larger of the type's
/// high-water mark in `sys.meta` and one more than the largest key in its
/// tree (files written before the mark existed have only the latter). A
/// write transaction keeps its next keys in memory and records them once,
/// at commit.
enum GeneratedKeys {
    /// The next key of `schema`'s type as the transaction sees it.
    static func next(_ schema: ObjectSchema, _ tree: WriteTree, in transaction: WriteTransaction) throws(FirnError) -> UInt64 {
        let cursor = try tree.cursor()
        try cursor.last()
        let largest = try cursor.withKey { ObjectKey.generatedID($0) }.flatMap { $0 } ?? 0
        let afterLargest = largest == UInt64.max ? largest : largest + 1
        return max(try stored(schema.name, in: transaction) ?? 1, afterLargest)
    }

    /// The high-water mark recorded for `type`, nil when there is none.
    static func stored(_ type: String, in transaction: WriteTransaction) throws(FirnError) -> UInt64? {
        guard let meta = try transaction.tree(SchemaMeta.treeName, create: false),
              let bytes = try meta.get(SchemaMeta.nextKeyKey(type)) else { return nil }
        return try SchemaMeta.decode(bytes, key: "nextKey.\(type)")
    }

    /// Records each type's next key (the keys given in this transaction).
    static func record(_ next: [String: UInt64], in transaction: WriteTransaction) throws(FirnError) {
        guard !next.isEmpty, let meta = try transaction.tree(SchemaMeta.treeName) else { return }
        for (type, value) in next {
            let key = SchemaMeta.nextKeyKey(type)
            if let bytes = try meta.get(key), try SchemaMeta.decode(bytes, key: "nextKey.\(type)") >= value { continue }
            _ = try meta.put(key, SchemaMeta.encode(value))
        }
    }
}
