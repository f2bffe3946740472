import FirnTools

/// `firn export`'s line (on stderr when the snapshot goes to stdout, without
/// the destination).
enum ExportText {
    static func line(_ report: Export.Report, file: String, output: String?) -> String {
        "\(file): exported version \(report.version) (\(report.trees) trees, \(Human.grouped(report.entries)) entries): "
            + "\(Human.bytes(report.imageBytes)) image → \(Human.bytes(report.compressedBytes)) LZ4 in \(Human.oneDecimal(report.seconds)) s"
            + (output.map { " → \($0)" } ?? "")
    }
}
