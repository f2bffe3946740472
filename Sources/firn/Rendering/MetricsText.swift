import FirnTools

/// `firn metrics` in the Prometheus text exposition format (version
/// 0.0.4, which node_exporter's textfile collector reads): a `# HELP` and
/// `# TYPE` line per metric, then a sample per file (label `file`, and
/// `kind` or `state` where a file has several).
enum MetricsText {
    private struct Family {
        var name: String
        var help: String
        var samples: [(labels: [(String, String)], value: String)] = []
    }

    static func text(_ files: [Metrics.File]) -> String {
        var families: [Family] = []
        func add(_ name: String, _ help: String, _ file: String, _ extra: [(String, String)] = [], _ value: String) {
            if families.last?.name != name, !families.contains(where: { $0.name == name }) {
                families.append(Family(name: name, help: help))
            }
            let index = families.firstIndex { $0.name == name }!
            families[index].samples.append(([("file", file)] + extra, value))
        }
        for file in files {
            let path = file.path
            add("firn_up", "Whether the file could be read (1) or not (0; the error is on stderr).", path, [], file.sample == nil ? "0" : "1")
            guard let s = file.sample else { continue }
            add("firn_file_bytes", "Size of the database file.", path, [], "\(s.fileBytes)")
            add("firn_live_bytes", "Bytes of the pages the current version uses.", path, [], "\(s.liveBytes)")
            add("firn_free_bytes", "Bytes free for reuse now.", path, [], "\(s.freeBytes)")
            add("firn_pinned_bytes", "Bytes held for pinned versions.", path, [], "\(s.pinnedBytes)")
            add("firn_awaiting_reclaim_bytes", "Bytes no pin sees that the versions in the commit slots still hold.", path, [],
                "\(s.awaitingReclaimBytes)")
            add("firn_current_version", "The current version.", path, [], "\(s.currentVersion)")
            add("firn_durable_version", "The newest version that survives power loss.", path, [], "\(s.durableVersion)")
            add("firn_pins", "Pins in the reader table: of live processes, or stale (their process exited).", path,
                [("state", "live")], "\(s.livePins)")
            add("firn_pins", "", path, [("state", "stale")], "\(s.stalePins)")
            for kind in s.kinds {
                let label = [("kind", kind.kind.description)]
                add("firn_live_pins", "Live pins of a kind.", path, label, "\(kind.pins)")
                add("firn_oldest_pin_lag_commits", "Commits behind the latest version of the oldest live pin of a kind.", path,
                    label, "\(kind.oldestLag)")
                add("firn_oldest_pin_age_seconds", "Age of the oldest live pin of a kind.", path, label, number(kind.oldestAgeSeconds))
                add("firn_frozen_objects", "Frozen objects the SDK keeps alive on live pins of a kind.", path, label,
                    "\(kind.frozenObjects)")
            }
            if let verify = s.verify {
                add("firn_verify_clean", "Whether verify found the current version clean (1) or not (0).", path, [],
                    verify.clean ? "1" : "0")
                add("firn_verify_findings", "Defects verify found.", path, [], "\(verify.findings)")
                add("firn_verify_duration_seconds", "How long verify took.", path, [], number(verify.seconds))
            }
        }
        var lines: [String] = []
        for family in families {
            lines.append("# HELP \(family.name) \(escaped(family.help, quotes: false))")
            lines.append("# TYPE \(family.name) gauge")
            for sample in family.samples {
                let labels = sample.labels.map { "\($0.0)=\"\(escaped($0.1, quotes: true))\"" }.joined(separator: ",")
                lines.append("\(family.name){\(labels)} \(sample.value)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A float as the format reads it (Go's ParseFloat: "0.25", "1e-05").
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf"))
    }

    /// Label values escape backslash, double quote and newline; help text
    /// backslash and newline only (`quotes` false).
    private static func escaped(_ value: String, quotes: Bool) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
