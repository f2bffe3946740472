import FirnTools

/// `firn get`'s output: the value's bytes (or hex), and the line that
/// says what is absent.
enum GetText {
    static func value(_ bytes: [UInt8], hex: Bool) -> [UInt8] {
        (hex ? Array(ByteText.hexString(bytes).utf8) : bytes) + [UInt8(ascii: "\n")]
    }

    static func absence(_ absence: Get.Absence, _ report: Get.Report) -> String {
        switch absence {
        case .noTree: "no tree \(JSONText.quoted(report.tree)) in version \(report.version)"
        case .noKey: "no key \(ByteText.field(report.key)) in tree \(JSONText.quoted(report.tree)) at version \(report.version)"
        }
    }
}
