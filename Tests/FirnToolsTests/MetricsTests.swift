import FirnTestSupport
import Foundation
import Testing

/// `firn metrics` writes what a parser of the Prometheus text format reads
/// (the reference one: Python's prometheus_client, which `make deps`
/// installs), and the README's cron line publishes it atomically.
@Suite struct MetricsTests {
    struct Sample: Decodable {
        let family, type, name: String
        let labels: [String: String]
        let value: Double
    }

    /// The first Python on the PATH, or the system's (where apt installs
    /// python3-prometheus-client), that imports prometheus_client.
    static let python: String = {
        for candidate in ["python3", "/usr/bin/python3"] {
            if let run = try? ChildProcess.run("/usr/bin/env", [candidate, "-c", "import prometheus_client"]), run.status == 0 {
                return candidate
            }
        }
        return "python3"
    }()

    /// The samples prometheus_client's parser reads from `text`.
    static func parse(_ text: String) throws -> [Sample] {
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            print(json.dumps([{"family": f.name, "type": f.type, "name": s.name, "labels": s.labels, "value": s.value}
                              for f in text_string_to_metric_families(sys.stdin.read()) for s in f.samples]))
            """
        let run = try ChildProcess.run("/usr/bin/env", [Self.python, "-c", script], stdin: Data(text.utf8))
        #expect(run.status == 0, "prometheus_client's parser refused the metrics (install it: make deps): \(run.stderr)\n\(text)")
        return try run.json([Sample].self)
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    @Test func metricsParseAsThePrometheusTextFormat() throws {
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        // A name with the characters a label value escapes.
        let odd = try dir.sampleDatabase("odd \"name\" \\ x.firn")
        let missing = dir.file("missing.firn")
        let hold = try ChildProcess(BuiltProducts.firn, ["hold", db, "--kind", "frozen", "--label", "cache", "--seconds", "60"])
        #expect(hold.readLine()?.hasPrefix("pinned version") == true, "\(hold.errorOutput())")

        let run = try FirnRun.run(["metrics", db, odd, missing, "--verify"])
        #expect(run.status == 66, "a missing file: its status, after the metrics")
        #expect(run.stderr == "firn: \(missing): no such file\n", "\(run.stderr)")
        let samples = try Self.parse(run.stdout)
        #expect(samples.allSatisfy { $0.type == "gauge" })
        #expect(Self.value(samples, "firn_up", ["file": db]) == 1)
        #expect(Self.value(samples, "firn_up", ["file": odd]) == 1, "\(samples.map(\.labels))")
        #expect(Self.value(samples, "firn_up", ["file": missing]) == 0)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int)
        #expect(Self.value(samples, "firn_file_bytes", ["file": db]) == Double(size))
        #expect(Self.value(samples, "firn_pins", ["file": db, "state": "live"]) == 1)
        #expect(Self.value(samples, "firn_pins", ["file": db, "state": "stale"]) == 0)
        #expect(Self.value(samples, "firn_live_pins", ["file": db, "kind": "frozen"]) == 1)
        #expect(Self.value(samples, "firn_oldest_pin_lag_commits", ["file": db, "kind": "frozen"]) == 0)
        #expect((Self.value(samples, "firn_oldest_pin_age_seconds", ["file": db, "kind": "frozen"]) ?? -1) >= 0)
        #expect(Self.value(samples, "firn_verify_clean", ["file": db]) == 1)
        #expect(Self.value(samples, "firn_verify_findings", ["file": odd]) == 0)
        #expect((Self.value(samples, "firn_verify_duration_seconds", ["file": db]) ?? -1) >= 0)
        #expect(Self.value(samples, "firn_file_bytes", ["file": missing]) == nil)

        // The pin's process killed: its slot is stale, no longer a live pin of its kind.
        hold.kill(SIGKILL)
        hold.waitForExit()
        let after = try Self.parse(try FirnRun.run(["metrics", db]).stdout)
        #expect(Self.value(after, "firn_pins", ["file": db, "state": "stale"]) == 1)
        #expect(Self.value(after, "firn_pins", ["file": db, "state": "live"]) == 0)
        #expect(Self.value(after, "firn_live_pins", ["file": db, "kind": "frozen"]) == nil)
    }

    /// The README's cron line, run with its paths pointed at a temporary
    /// directory: the collector's file appears whole, no temporary left.
    @Test func theReadmesCronLineWritesTheMetricsAtomically() throws {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let line = try #require(readme.split(separator: "\n").first { $0.contains("firn metrics") && !$0.hasPrefix("#") && $0.contains("mv ") },
                                "README has no cron line with firn metrics")
        let command = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).joined(separator: " ")
        let dir = try TemporaryDirectory()
        let db = try dir.sampleDatabase()
        let collector = dir.file("textfile")
        try FileManager.default.createDirectory(atPath: collector, withIntermediateDirectories: false)
        let script = command.replacingOccurrences(of: "/srv/app/app.firn", with: db)
            .replacingOccurrences(of: "/var/lib/node_exporter/textfile_collector", with: collector)
        let bin = (BuiltProducts.firn as NSString).deletingLastPathComponent
        let run = try ChildProcess.run("/bin/sh", ["-c", script], environment: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(run.status == 0, "\(script): \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: collector) == ["firn.prom"])
        let samples = try Self.parse(try String(contentsOfFile: collector + "/firn.prom", encoding: .utf8))
        #expect(Self.value(samples, "firn_up", ["file": db]) == 1)
    }
}
