import FirnTools

/// `firn get --json`: the report with its key and value spelled as the
/// entries format spells them.
struct GetJSON: Encodable {
    var report: Get.Report

    init(_ report: Get.Report) { self.report = report }

    private enum Keys: String, CodingKey { case key, value }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(ByteText.field(report.key), forKey: .key)
        try container.encode(report.value.map { ByteText.field($0) }, forKey: .value)
    }
}
