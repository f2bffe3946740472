import ArgumentParser
import FirnTools
#if canImport(Glibc)
import Glibc
#endif

/// Options every command takes (the toolkit contract in DESIGN.md).
struct CommonOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON with stable keys on stdout.")
    var json = false

    /// `--progress` / `--no-progress`, the last one given wins: an
    /// enumerable flag rather than an inversion, so each has its own help.
    @Flag(exclusivity: .chooseLast) var progress: ProgressChoice?

    @Option(name: .customLong("lock-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).",
                               valueName: "seconds"),
            transform: NumericOption.lockTimeout)
    var lockTimeout: Double?

    var showProgress: Bool {
        switch progress {
        case .progress?: true
        case .noProgress?: false
        case nil: isatty(2) == 1
        }
    }

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

/// Whether progress is drawn on stderr, when the user says.
enum ProgressChoice: EnumerableFlag {
    case progress, noProgress

    static func help(for value: ProgressChoice) -> ArgumentHelp? {
        switch value {
        case .progress: "Show progress on stderr even when it is not a terminal (default: only when it is)."
        case .noProgress: "Show no progress, even when stderr is a terminal."
        }
    }
}
