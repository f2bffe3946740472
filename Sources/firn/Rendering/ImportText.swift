import FirnTools

/// `firn import`'s line: the version, its entries and size, verified.
enum ImportText {
    static func lines(_ report: Import.Report, snapshot: String, output: String) -> [String] {
        let entries = report.trees.filter { $0.kind == .user }.reduce(UInt64(0)) { $0 + $1.entries }
        return ["\(output): imported version \(report.version) (\(Human.grouped(entries)) entries, \(Human.bytes(report.bytes))) from \(snapshot), verified\(report.replaced ? ", replaced the old file" : "")"]
    }
}
