import FirnTools

/// `firn load`'s line: entries, commits, the version, entries per tree.
enum LoadText {
    static func lines(_ report: Load.Report, file: String) -> [String] {
        let trees = report.trees.sorted { $0.key < $1.key }.map { "\($0.key) \(Human.grouped($0.value))" }.joined(separator: ", ")
        return ["\(file): loaded \(Human.grouped(report.entries)) entries in \(report.batches) commit(s)\(report.created ? " (new file)" : ""), now at version \(report.version)\(trees.isEmpty ? "" : ": " + trees)"]
    }
}
