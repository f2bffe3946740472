/// Ordered iteration over a key range, for snapshots and write transactions.
extension TreeReader {
    /// Calls `body` for each entry with `lower <= key < upper` (nil: unbounded),
    /// in key order, until it returns false. Keys and inline values point into
    /// the map; they are valid during the call.
    package func forEach(
        from lower: [UInt8]? = nil, upTo upper: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: Value) throws(FirnError) -> Bool
    ) throws(FirnError) {
        // A version between checkpoints: the checkpoint's tree alone misses
        // what the frames put and shows what they deleted. Walk the merge.
        if log != nil { return try forEachMerged(from: lower, upTo: upper, body) }
        var cursor = TreeCursor(source: source, rootRef: entry.root)
        do {
            if let lower { try cursor.seek(lower) } else { try cursor.first() }
            while cursor.isValid {
                guard let key = try cursor.withKey({ $0 }) else { return }
                if let upper, compareBytes(upper, key) <= 0 { return }
                let value: Value
                switch try cursor.storedValue() {
                case let .inline(bytes)?: value = Value(bytes: bytes, owner: snapshot)
                case let .overflow(head, length)?:
                    value = Value(copying: try source.readOverflow(head, length: length), owner: snapshot)
                case nil: return
                }
                guard try body(key, value) else { return }
                try cursor.next()
            }
        } catch {
            throw error.located(in: snapshot.store.path, version: snapshot.version)
        }
    }

    /// `forEach` through `cursor()`, which merges the log's entries over
    /// the checkpoint's tree (errors come out located, as the cursor's do).
    private func forEachMerged(
        from lower: [UInt8]?, upTo upper: [UInt8]?,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: Value) throws(FirnError) -> Bool
    ) throws(FirnError) {
        let cursor = cursor()
        if let lower { try cursor.seek(lower) } else { try cursor.first() }
        while cursor.isValid {
            guard let key = try cursor.key, let value = try cursor.currentValue else { return }
            if let upper, compareBytes(upper, key) <= 0 { return }
            guard try withBytes(key, { (k) throws(FirnError) in try body(k, value) }) else { return }
            try cursor.next()
        }
    }
}

extension WriteTree {
    /// The entries with `lower <= key < upper` (nil: unbounded) as this
    /// transaction sees them, in key order, at most `limit`.
    package func entries(from lower: [UInt8]? = nil, upTo upper: [UInt8]? = nil, limit: Int = .max) throws(FirnError) -> [(key: [UInt8], value: [UInt8])] {
        let cursor = try cursor()
        if let lower { try cursor.seek(lower) } else { try cursor.first() }
        var out: [(key: [UInt8], value: [UInt8])] = []
        while out.count < limit, cursor.isValid, let key = try cursor.key {
            if let upper, upper.lexicographicallyPrecedes(key) || upper == key { break }
            out.append((key, try cursor.value ?? []))
            try cursor.next()
        }
        return out
    }
}
