import FirnCore

/// `firn get`: one key's value in one tree of a readable version, for the
/// scripts that would otherwise run `dump --entries | grep`.
package enum Get {
    package struct Options: Sendable {
        package var path: String
        package var tree: String
        package var key: [UInt8]
        package var version: UInt64?
        package init(path: String, tree: String, key: [UInt8]) {
            self.path = path
            self.tree = tree
            self.key = key
        }
    }

    /// Why a key has no value: its tree is not in the version, or the tree
    /// does not hold it.
    package enum Absence: String, Codable, Sendable {
        case noTree, noKey
    }

    package struct Report: Encodable, Sendable {
        package var path: String
        package var version: UInt64
        package var tree: String
        package var key: [UInt8]
        /// nil when absent (`absence` says why).
        package var value: [UInt8]?
        package var absence: Absence?
        package var pinned: Bool
        package var note: String?

        /// The bytes are spelled by the CLI (text or hex), not encoded here.
        enum CodingKeys: String, CodingKey { case path, version, tree, absence, pinned, note }
    }

    package static func run(_ options: Options) throws -> Report {
        let access = try ReadAccess.open(options.path, version: options.version, label: "firn get")
        defer { access.close() }
        var report = Report(path: options.path, version: access.snapshot.version, tree: options.tree, key: options.key,
                            value: nil, absence: nil, pinned: access.pinned, note: access.note)
        guard let tree = try access.snapshot.tree(options.tree) else {
            report.absence = .noTree
            return report
        }
        report.value = try tree.get(options.key)?.array
        if report.value == nil { report.absence = .noKey }
        return report
    }
}
