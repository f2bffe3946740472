/// What `Verifier` found: one finding per defect, each naming the page,
/// tree and version, and what was expected against what was found.
package struct VerifyFinding: Codable, Sendable, Equatable, CustomStringConvertible {
    /// A stable category; JSON spells it as the case's name (`slot`,
    /// `range`, `doubleUse`…).
    package var kind: Kind
    package var page: UInt64?
    package var tree: String?
    package var version: UInt64?
    package var expected: String?
    package var found: String?
    package var message: String

    package init(_ kind: Kind, page: UInt64? = nil, tree: String? = nil, version: UInt64? = nil,
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
    package enum Kind: String, Codable, Sendable, CaseIterable {
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


    package var description: String {
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
package struct VerifiedTree: Codable, Sendable, Equatable {
    package var name: String
    /// A user tree, or the catalog or space tree (whatever the user trees are named).
    package var kind: TreeKind
    package var entries: UInt64
    package var depth: Int
    package var branchPages: UInt64
    package var leafPages: UInt64
    package var overflowPages: UInt64

    /// Adds `other`'s entries and pages (a part of this tree walked apart).
    mutating func addCounts(of other: VerifiedTree) {
        entries += other.entries
        branchPages += other.branchPages
        leafPages += other.leafPages
        overflowPages += other.overflowPages
    }
}

/// One commit slot as verification saw it.
package struct VerifiedSlot: Codable, Sendable, Equatable {
    package var slot: Int
    package var valid: Bool
    package var version: UInt64?
    package var timestampNanoseconds: UInt64?
    package var current: Bool
    /// Why the slot is not valid; for a valid record the open-time check
    /// rejected (a commit cut short by a power loss), why it was rejected.
    package var problem: String?
    /// An unsealed record: a deferred commit whose group has not reached
    /// its durability point yet (FORMAT.md 8.1).
    package var unsealed: Bool = false
}

/// The result of verifying one version.
package struct VerifyReport: Codable, Sendable {
    package var path: String
    package var version: UInt64
    package var pageSize: Int
    package var quick: Bool
    package var slots: [VerifiedSlot]
    package var trees: [VerifiedTree]
    /// Pages the version reaches (catalog, trees, overflow chains, space tree), slots included.
    package var reachablePages: UInt64
    package var freePages: UInt64
    /// Pages retired but still seen by an older (previous or pinned) version.
    package var retiredPages: UInt64
    package var logicalPages: UInt64
    package var bytesChecked: UInt64
    package var findings: [VerifyFinding]
    /// True when `maxErrors` stopped the run early.
    package var truncated: Bool
    /// The commit log of the checkpoint the version reads through, when it
    /// made one (FORMAT.md 8.2), with verification's `notes`.
    package var log: LogReport? = nil

    package var isClean: Bool { findings.isEmpty }
}
