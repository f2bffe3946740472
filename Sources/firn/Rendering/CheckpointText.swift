import FirnTools

/// `firn checkpoint`'s line.
enum CheckpointText {
    static func lines(_ report: Checkpoint.Report, file: String) -> [String] {
        report.written
            ? ["\(file): checkpoint written as version \(report.version) (the log's changes up to version \(report.previousVersion) are in the trees)"]
            : ["\(file): version \(report.version) is a checkpoint already; nothing written"]
    }
}
