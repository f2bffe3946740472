/// One page of a tree as `Snapshot.walkPages` reports it (`firn dump --pages`).
package struct PageSummary: Codable, Sendable, Equatable {
    package var page: UInt64
    package var tree: String
    /// `branch`, `leaf` or `overflow`.
    package var type: String
    /// 0 for leaves and overflow pages; height above the leaves for branches.
    package var level: Int
    package var birth: UInt64
    /// Cells (branch, leaf); 0 for overflow pages.
    package var count: Int
    /// Bytes in use: header, offset table and cells (overflow: header and payload).
    package var usedBytes: Int
    /// The first and last key (branch: separators; the first is implicit, so
    /// the second is shown); nil for overflow pages and empty pages.
    package var firstKey: [UInt8]?
    package var lastKey: [UInt8]?
}
