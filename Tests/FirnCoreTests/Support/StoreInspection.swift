@testable import FirnCore

/// What a store holds at its current version, as the crash tests judge it:
/// the version, the Verifier's findings, the full contents, and the ledger
/// invariant's problems. `problems` is empty when the version is intact.
struct StoreInspection {
    var version: UInt64
    var findings: [String]
    var contents: LedgerModel.Contents
    var ledgerProblems: [String]

    var problems: [String] { findings.map { "verify: \($0)" } + ledgerProblems.map { "ledger: \($0)" } }

    /// Verifies the latest version of `store` and reads all of it.
    static func inspect(_ store: Store) throws -> StoreInspection {
        // The Verifier reads the log from the file: the deferred frames
        // this store keeps in memory go there first (a reader never writes).
        try store.writeUnwrittenFrames()
        let snapshot = try store.snapshot(label: "crash-test inspection")
        defer { snapshot.close() }
        return try inspect(snapshot, slots: try store.readSlots())
    }

    /// Verifies `snapshot` (with the commit slots, when given) and reads all of it.
    static func inspect(_ snapshot: Snapshot, slots: CommitSlots?) throws -> StoreInspection {
        let report = Verifier.verify(snapshot, slots: slots)
        var findings = report.findings.map(\.description)
        var contents: LedgerModel.Contents = [:]
        if findings.isEmpty {
            do {
                contents = try read(snapshot)
            } catch {
                findings.append("reading the verified version failed: \(error)")
            }
        }
        return StoreInspection(
            version: snapshot.version, findings: findings, contents: contents,
            ledgerProblems: findings.isEmpty ? LedgerModel.problems(in: contents) : [])
    }

    /// Every tree of `snapshot`, every entry, values with overflow chains followed.
    static func read(_ snapshot: Snapshot) throws -> LedgerModel.Contents {
        var contents: LedgerModel.Contents = [:]
        for name in try snapshot.treeNames() {
            guard let tree = try snapshot.tree(name) else { throw LedgerFailure("tree \(name) listed but not found") }
            var entries: [[UInt8]: [UInt8]] = [:]
            let cursor = tree.cursor()
            try cursor.first()
            while cursor.isValid {
                guard let key = try cursor.key, let value = try cursor.value else {
                    throw LedgerFailure("cursor on tree \(name) is valid but has no entry")
                }
                entries[key] = value
                try cursor.next()
            }
            if UInt64(entries.count) != tree.count {
                throw LedgerFailure("tree \(name) counts \(tree.count) entries but holds \(entries.count)")
            }
            contents[name] = entries
        }
        return contents
    }

    /// A short description of how `contents` differs from `expected`.
    static func difference(_ contents: LedgerModel.Contents, _ expected: LedgerModel.Contents) -> String {
        var parts: [String] = []
        for name in Set(contents.keys).union(expected.keys).sorted() {
            let have = contents[name] ?? [:], want = expected[name] ?? [:]
            let missing = want.keys.filter { have[$0] == nil }.count
            let extra = have.keys.filter { want[$0] == nil }.count
            let changed = want.keys.filter { have[$0] != nil && have[$0] != want[$0] }.count
            if missing + extra + changed > 0 {
                parts.append("\(name): \(missing) missing, \(extra) extra, \(changed) different")
            }
        }
        return parts.isEmpty ? "identical" : parts.joined(separator: "; ")
    }
}
