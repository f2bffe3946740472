import FirnTools

/// `firn hold`'s line, printed once the pin is taken.
enum HoldText {
    static func lines(_ report: Hold.Report, file: String) -> [String] {
        ["pinned version \(report.version) of \(file) (pid \(report.pid), kind \(report.kind), label \"\(report.label)\")"]
    }
}
