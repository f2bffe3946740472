import ArgumentParser
import FirnTools

struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print what a monitor watches of each file in the Prometheus text format (node_exporter's textfile collector).",
        discussion: """
            One sample per file (label file) of: firn_up (1 read, 0 not: its error on stderr), firn_file_bytes, \
            firn_live_bytes, firn_free_bytes, firn_pinned_bytes, firn_awaiting_reclaim_bytes, firn_current_version, \
            firn_durable_version, firn_pins (label state: live or stale, the slots of exited processes); per pin kind \
            of the live pins (label kind): firn_live_pins, firn_oldest_pin_lag_commits, firn_oldest_pin_age_seconds, \
            firn_frozen_objects; with --verify: firn_verify_clean, firn_verify_findings, firn_verify_duration_seconds. \
            Every file is sampled even when one cannot be read; the exit status is then that file's error's, after \
            the metrics are written. To publish atomically, write a temporary file in the collector's directory and \
            rename it (see the README's cron section). JSON: an array of {path, sample, error}.
            """)

    @Argument(help: "The database files.") var files: [String]
    @Flag(help: "Also verify each file (reads every page) and report the findings and the time it took.") var verify = false
    @OptionGroup var common: CommonOptions

    func run() throws {
        var options = Metrics.Options(paths: files)
        options.verify = verify
        let files = Metrics.run(options)
        switch common.format {
        case .json: try Console.json(files.map(MetricsJSON.init))
        case .text: try Console.write(MetricsText.text(files))
        case .silent: break
        }
        var first: (any Error)?
        for file in files {
            guard let failure = file.failure else { continue }
            if first == nil { first = failure } else { _ = ExitStatus.report(failure) }
        }
        if let first { throw first }
    }
}
