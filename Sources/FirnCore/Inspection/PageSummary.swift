/// One page of a tree as `Snapshot.walkPages` reports it (`firn dump --pages`).
public struct PageSummary: Codable, Sendable, Equatable {
    public var page: UInt64
    public var tree: String
    /// `branch`, `leaf` or `overflow`.
    public var type: String
    /// 0 for leaves and overflow pages; height above the leaves for branches.
    public var level: Int
    public var birth: UInt64
    /// Cells (branch, leaf); 0 for overflow pages.
    public var count: Int
    /// Bytes in use: header, offset table and cells (overflow: header and payload).
    public var usedBytes: Int
    /// The first and last key (branch: separators; the first is implicit, so
    /// the second is shown); nil for overflow pages and empty pages.
    public var firstKey: [UInt8]?
    public var lastKey: [UInt8]?
}
