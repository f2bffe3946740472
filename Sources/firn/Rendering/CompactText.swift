import FirnTools

/// `firn compact`'s line, and why it skipped (the JSON's `reason`).
enum CompactText {
    static func lines(_ report: Compact.Report, file: String, output: String) -> [String] {
        let change = "\(Human.bytes(report.beforeBytes)) → \(Human.bytes(report.afterBytes))"
        if report.compacted {
            let target = report.inPlace ? "in place" : "into \(output)"
            return ["\(file): compacted version \(report.version) \(target): \(change) (\(Human.delta(report.beforeBytes, report.afterBytes)), \(Human.oneDecimal(report.seconds)) s)"]
        }
        return ["\(file): not compacted (\(reason(report) ?? "skipped")): would go \(change), \(Human.oneDecimal(report.reclaimablePercent))% reclaimable"]
    }

    static func reason(_ report: Compact.Report) -> String? {
        switch report.skipped {
        case nil: nil
        case .dryRun: "dry run"
        case let .notOver(percent):
            "only \(Human.oneDecimal(report.reclaimablePercent))% of the file is reclaimable (--if-free-over \(Human.oneDecimal(percent)))"
        }
    }

    static func json(_ report: Compact.Report) -> some Encodable {
        struct Reason: Encodable { var reason: String? }
        return JSONDocument(report: report, rendered: Reason(reason: reason(report)))
    }
}
