import FirnTools

/// `firn versions`' table: a row per readable version.
enum VersionsText {
    static func lines(_ report: Versions.Report) -> [String] {
        var lines = ["VERSION  LAG    TIME                  ROLES                      HOLDERS"]
        for v in report.versions {
            let holders = v.holders.map { "pid \($0.pid) \($0.kind)\($0.label.isEmpty ? "" : " \"\($0.label)\"")" }.joined(separator: ", ")
            let roles = v.roles.map(\.rawValue).joined(separator: ",") + (v.readable ? "" : " (not readable)")
            let line = "\(String(v.version).padding(8)) \(String(v.lag).padding(6)) \((v.time ?? "-").padding(21)) \(roles.padding(26)) \(holders)"
            lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
        }
        return lines
    }
}
