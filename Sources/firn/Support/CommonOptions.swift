import ArgumentParser
import FirnTools
#if canImport(Glibc)
import Glibc
#endif

/// Options every command takes (the toolkit contract in DESIGN.md).
struct CommonOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON with stable keys on stdout.")
    var json = false

    @Flag(inversion: .prefixedNo, help: "Show progress on stderr (default: only when stderr is a terminal).")
    var progress: Bool?

    @Option(name: .customLong("lock-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).",
                               valueName: "seconds"),
            transform: NumericOption.lockTimeout)
    var lockTimeout: Double?

    var showProgress: Bool { progress ?? (isatty(2) == 1) }

    /// How the command shows its report.
    var format: ReportFormat { json ? .json : .text }

    /// The wait for the writer lock: `--lock-timeout`, else 30 s (never forever).
    var writerLockTimeout: Double { lockTimeout ?? 30 }

    func progressLine() -> ProgressLine { ProgressLine(enabled: showProgress && !json) }

    /// Runs `body` with a progress callback, drawn on stderr while it runs
    /// (when progress is shown) and cleared when it returns.
    func withProgress<R>(_ body: (ProgressHandler?) throws -> R) throws -> R {
        let line = progressLine()
        let result = try body(line.handler)
        line.finish()
        return result
    }

    /// Prints a read's note (no pin, why) on stderr.
    func note(_ text: String?) {
        if let text { Console.note(text) }
    }
}
