/// What a diff cost and what it found: the work follows the change, not
/// the size of the tree, and these figures show it.
public struct DiffStats: Sendable, Equatable {
    /// Pages read from both versions: tree pages, and overflow pages read
    /// to compare two long values of equal length.
    public var pagesRead = 0
    /// Subtrees passed over unread because both versions reference the
    /// same page (same page number, birth and checksum).
    public var subtreesSkipped = 0
    /// Leaf entries read from both versions.
    public var entriesRead = 0
    /// Changes reported to the callback.
    public var changes = 0
    /// False when the callback stopped the diff early.
    public var completed = true

    public init() {}
}
