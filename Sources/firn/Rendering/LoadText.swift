import FirnTools

/// `firn load`'s line: entries written, commits, the version, then per
/// tree the keys it holds (and how many entries replaced a key present).
enum LoadText {
    static func lines(_ report: Load.Report, file: String) -> [String] {
        let trees = report.trees.sorted { $0.key < $1.key }.map { name, count in
            "\(name) \(Human.grouped(count.keys)) key(s)"
                + (count.overwritten > 0 ? " (\(Human.grouped(count.overwritten)) overwritten)" : "")
        }.joined(separator: ", ")
        return ["\(file): wrote \(Human.grouped(report.entries)) entries in \(report.batches) commit(s)"
                + "\(report.created ? " (new file)" : ""), now at version \(report.version)"
                + (trees.isEmpty ? "" : ": " + trees)]
    }
}
