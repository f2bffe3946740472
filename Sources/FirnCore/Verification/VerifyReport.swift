/// What `Verifier` found: one finding per defect, each naming the page,
/// tree and version, and what was expected against what was found.
public struct VerifyFinding: Codable, Sendable, Equatable, CustomStringConvertible {
    /// A stable category; JSON spells it as the case's name (`slot`,
    /// `range`, `doubleUse`…).
    public var kind: Kind
    public var page: UInt64?
    public var tree: String?
    public var version: UInt64?
    public var expected: String?
    public var found: String?
    public var message: String

    public init(_ kind: Kind, page: UInt64? = nil, tree: String? = nil, version: UInt64? = nil,
                expected: String? = nil, found: String? = nil, message: String) {
        self.kind = kind
        self.page = page
        self.tree = tree
        self.version = version
        self.expected = expected
        self.found = found
        self.message = message
    }

    /// The categories of findings (a string in JSON: the case's name).
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case slot, range, type, misdirected, birth, checksum, structure, order, depth, count, overflow
        case doubleUse, leak, space, history, lockFile
        /// A length beyond a limit docs/FORMAT.md states (the key limit, the inline limit).
        case limit
        /// A reserved field, flag bit or padding that is not zero.
        case reserved
        /// A catalog key that is not a tree name (empty, longer than the key limit, not UTF-8).
        case name
        /// A page the previous slot's version sees that the current version freed or rewrote.
        case previousVersion
        /// A commit log frame that checks out (whole, chained) but cannot be
        /// applied, or a version the log does not hold (FORMAT.md 8.2).
        case log
        /// The object layer (FORMAT.md §12): a schema record, an object
        /// record or a list element that does not decode under the stored
        /// schema — what `dump --objects` refuses.
        case object
    }


    public var description: String {
        var parts: [String] = []
        if let page { parts.append("page \(page)") }
        if let tree { parts.append("tree \"\(tree)\"") }
        if let version { parts.append("version \(version)") }
        var text = (parts.isEmpty ? "" : parts.joined(separator: ", ") + ": ") + "\(kind.rawValue): \(message)"
        if let expected, let found { text += " (expected \(expected), found \(found))" }
        return text
    }
}

/// One tree as verification saw it.
public struct VerifiedTree: Codable, Sendable, Equatable {
    public var name: String
    /// A user tree, or the catalog or space tree (whatever the user trees are named).
    public var kind: TreeKind
    public var entries: UInt64
    public var depth: Int
    public var branchPages: UInt64
    public var leafPages: UInt64
    public var overflowPages: UInt64
}

/// One commit slot as verification saw it.
public struct VerifiedSlot: Codable, Sendable, Equatable {
    public var slot: Int
    public var valid: Bool
    public var version: UInt64?
    public var timestampNanoseconds: UInt64?
    public var current: Bool
    /// Why the slot is not valid; for a valid record the open-time check
    /// rejected (a commit cut short by a power loss), why it was rejected.
    public var problem: String?
    /// An unsealed record: a deferred commit whose group has not reached
    /// its durability point yet (FORMAT.md 8.1).
    public var unsealed: Bool = false
}

/// The result of verifying one version.
public struct VerifyReport: Codable, Sendable {
    public var path: String
    public var version: UInt64
    public var pageSize: Int
    public var quick: Bool
    public var slots: [VerifiedSlot]
    public var trees: [VerifiedTree]
    /// Pages the version reaches (catalog, trees, overflow chains, space tree), slots included.
    public var reachablePages: UInt64
    public var freePages: UInt64
    /// Pages retired but still seen by an older (previous or pinned) version.
    public var retiredPages: UInt64
    public var logicalPages: UInt64
    public var bytesChecked: UInt64
    public var findings: [VerifyFinding]
    /// True when `maxErrors` stopped the run early.
    public var truncated: Bool
    /// The commit log of the checkpoint the version reads through, when it
    /// made one (FORMAT.md 8.2).
    public var log: VerifiedLog? = nil

    public var isClean: Bool { findings.isEmpty }
}

/// A checkpoint's commit log as verification saw it (FORMAT.md 8.2): the
/// frames a scan of its region accepts, each commit frame applied over the
/// versions before it as readers apply it.
public struct VerifiedLog: Codable, Sendable, Equatable {
    /// The checkpoint's version.
    public var epoch: UInt64
    public var firstPage: UInt64
    public var pages: UInt64
    public var commitFrames: Int
    public var sealFrames: Int
    /// The last commit frame accepted (the epoch with none).
    public var newestVersion: UInt64
    /// The last commit written with its sync or the last seal: what a
    /// first opener takes.
    public var durableVersion: UInt64
    /// Why the scan stopped, at which byte of the region, and (inside the
    /// region) in which file page.
    public var end: LogEndKind
    public var endOffset: UInt64
    public var endPage: UInt64?
    /// The newest version whose frames, and every frame before them, apply.
    public var appliedVersion: UInt64
    /// What is normal but worth knowing: a torn, stale or damaged end after
    /// the version's frame (what a crash during a write leaves), frames
    /// past the version.
    public var notes: [String]
}
